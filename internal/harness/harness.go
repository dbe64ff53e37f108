// Package harness builds the driver that runs one function of a C program on drawn
// inputs (fragprof freq --func), as FreqSys studies a function without its program:
// the function's parameters are bound by their C names (from debug info), globals
// and extern globals by theirs; the unit's own main is set aside.
//
// The driver is a small LLVM IR module that defines the program's main (as
// instrument.MainName, which the runtime calls) and reads the values of one trial
// from stdin through the runtime's helpers (runtime/c/harness.c), in a binary layout
// that Encode writes: for each binding in order, a scalar is 8 bytes (an int64 or
// the bits of a float64, little-endian), an array is its length (u64) then its
// elements as 8 bytes each, a string is its length then its bytes.
package harness

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// SetAsideMain is what the unit's own main is renamed to in function mode.
const SetAsideMain = "__fragprof_unit_main"

// Elem describes the C type of a scalar or of an array's elements.
type Elem struct {
	IRType string // "i32", "double", ...
	Size   int    // bytes
	Float  bool
}

// A Binding ties one input to one parameter or global.
type Binding struct {
	Input  string // the input's name (= the C name)
	Param  int    // the parameter's index, or -1 for a global
	Global string // the global's IR name, for a global
	Extern bool   // a global the program declares but does not define
	IRType string // the parameter's or global's IR type
	Attrs  string // the parameter's attributes (signext, noundef, ...)
	// Elem is the scalar type, or the element type when Pointer or Array is set.
	Elem    Elem
	Pointer bool // a pointer parameter: filled with a fresh array
	Ref     bool // a C++ reference to a scalar: the address of a fresh copy
	Vector  bool // a C++ std::vector<scalar>, by reference or by value: a fresh vector
	Array   int  // a global array of this many elements; 0 otherwise
	String  bool // the input is a string (char *)
	kind    dist.Kind
	index   int // the input's index in the model
}

// A Harness drives one function.
type Harness struct {
	Func     string
	RetType  string
	Bindings []Binding // globals first, then parameters in order
	// Warnings are what the harness cannot make right but the user should know: the
	// globals the function reads that the program's main sets at run time.
	Warnings []string
	nparams  int
	opaque   bool
	triple   []string // the unit's datalayout and triple lines
}

// New plans the harness for function fn of module m with the inputs of model. It
// fails, listing everything at once, when a parameter or an extern global has no
// input, when an input names nothing, or when a type cannot be filled.
func New(m *llvmir.Module, fn string, model *dist.Model) (*Harness, error) {
	var f *llvmir.Func
	var names []string
	for _, g := range m.Funcs {
		names = append(names, g.Name)
	}
	switch match := cfg.MatchNames(names, fn); len(match) {
	case 1:
		fn = match[0]
		for _, g := range m.Funcs {
			if g.Name == fn {
				f = g
			}
		}
	case 0:
	default:
		return nil, fmt.Errorf("--func: %v", cfg.Ambiguous(fn, match))
	}
	if f == nil || fn == "main" {
		var shown []string
		for _, n := range names {
			if n != "main" {
				shown = append(shown, cfg.Demangle(n))
			}
		}
		sort.Strings(shown)
		if fn == "main" {
			return nil, fmt.Errorf("--func main: main is the program itself, not a function to call with inputs: leave out --func to run the program (its inputs through --stdin and --arg), or name another function (%s)", strings.Join(shown, ", "))
		}
		return nil, fmt.Errorf("--func %s: no such function (defined: %s; clang emits no code for a static function that nothing calls)", fn, strings.Join(shown, ", "))
	}
	h := &Harness{Func: fn, RetType: f.RetType, nparams: len(f.Params), opaque: m.Opaque}
	for _, l := range m.Lines {
		if strings.HasPrefix(l, "target datalayout") || strings.HasPrefix(l, "target triple") {
			h.triple = append(h.triple, l)
		}
	}
	var problems []string
	used := map[string]bool{}
	globals := moduleGlobals(m)
	// Globals named by inputs (and extern globals, which must be).
	for k, in := range model.Inputs {
		g, ok := globals[in.Name]
		if !ok {
			continue
		}
		b := Binding{Input: in.Name, Param: -1, Global: in.Name, Extern: g.extern, IRType: g.typ, kind: in.Kind, index: k}
		used[in.Name] = true
		if err := b.fill(g.typ, globalDIType(m, in.Name), m); err != nil {
			problems = append(problems, fmt.Sprintf("global %s: %v", in.Name, err))
			continue
		}
		h.Bindings = append(h.Bindings, b)
	}
	// An extern global without an input is left to the libraries (stderr, errno...);
	// one that no library defines fails at the link, which names it.
	// Parameters, by their names in debug info.
	pnames := paramNames(m, f)
	for i, p := range f.Params {
		name := pnames[i]
		if name == "" {
			name = strings.TrimPrefix(p.Name, "%")
		}
		k, ok := model.Lookup(name)
		if !ok {
			ct := p.Type
			if id := paramDIType(m, f, i); id >= 0 {
				ct = cType(m, id)
			}
			problems = append(problems, fmt.Sprintf("parameter %d '%s' (%s) has no input: give it one with --input '%s = ...'", i+1, name, ct, name))
			continue
		}
		in := model.Inputs[k]
		b := Binding{Input: name, Param: i, IRType: p.Type, Attrs: p.Attrs, kind: in.Kind, index: k}
		used[name] = true
		if err := b.fill(p.Type, paramDIType(m, f, i), m); err != nil {
			if w := writtenParams(fn); len(w) > 0 && i-(len(f.Params)-len(w)) >= 0 {
				// C++: say the type as the source writes it.
				t := w[i-(len(f.Params)-len(w))]
				problems = append(problems, fmt.Sprintf("parameter %d '%s' has type %s, which --func cannot fill (scalars, references to scalars, pointers to scalars and arrays, std::vector of scalars can): %v", i+1, name, t, err))
				continue
			}
			problems = append(problems, fmt.Sprintf("parameter %d '%s': %v", i+1, name, err))
			continue
		}
		h.Bindings = append(h.Bindings, b)
	}
	for _, in := range model.Inputs {
		if !used[in.Name] && !isLengthOnly(in.Name, model) {
			problems = append(problems, fmt.Sprintf("input %s is neither a parameter of %s nor a global of the program", in.Name, fn))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("--func %s: cannot bind the inputs:\n  %s", fn, strings.Join(problems, "\n  "))
	}
	for _, g := range mainSetGlobals(m, fn, used) {
		h.Warnings = append(h.Warnings, fmt.Sprintf("--func %s reads the global '%s', which main sets at run time; --func does not run main, "+
			"so '%s' keeps its static initial value in every trial: bind it with --input '%s = ...' if the function depends on it", fn, g, g, g))
	}
	return h, nil
}

// isLengthOnly reports whether an input that binds nothing is used by others (an
// array length), which is allowed.
func isLengthOnly(name string, m *dist.Model) bool {
	for _, in := range m.Inputs {
		for _, d := range in.Deps {
			if d == name {
				return true
			}
		}
	}
	return false
}

// fill works out how a value of the input's kind reaches a C object of IR type typ
// and debug type diType (-1 if unknown). Scalars take numbers; pointers to scalars
// and arrays of scalars take array(...) inputs, arrays of any rank (int g[3][4],
// int a[][4]) filled row-major from one flat array; char pointers take strings.
// Anything else (structs, unions, pointers to pointers, function pointers) is refused
// with its C type as the source writes it.
func (b *Binding) fill(typ string, diType int, m *llvmir.Module) error {
	if err := b.fillType(typ, diType, m); err != nil {
		ctype := typ
		if diType >= 0 {
			ctype = cType(m, diType)
		}
		return fmt.Errorf("%v (its C type: %s)", err, ctype)
	}
	return nil
}

func (b *Binding) fillType(typ string, diType int, m *llvmir.Module) error {
	isArrayKind := b.kind == dist.KindIntArray || b.kind == dist.KindFloatArray
	if diType >= 0 {
		// A struct or union passed by value (as a pointer with byval, or coerced to
		// integers): never filled as what its IR type looks like. (A std::vector by
		// value is filled below.)
		if n := strip(m, m.Meta[diType]); n != nil && n.Kind == "DICompositeType" && n.Field("tag") != "DW_TAG_array_type" && vectorElem(m, diType) == "" {
			return errors.New(unfillable(m, diType, "a value"))
		}
	}
	switch {
	case (typ == "ptr" || strings.HasSuffix(typ, "*")) && vectorElem(m, diType) != "":
		// std::vector<T> of a scalar T, by reference or by value (which the Itanium
		// ABI passes as a pointer to a temporary): the driver builds one.
		et := vectorElem(m, diType)
		e, ok := cxxScalar(et)
		if !ok {
			return fmt.Errorf("a std::vector of %s cannot be filled (vectors of scalars can)", et)
		}
		if !isArrayKind {
			return fmt.Errorf("a std::vector takes an array(...) input, not a %s", b.kind)
		}
		b.Vector, b.Elem = true, e
		if strings.Contains(typ, "%") {
			// clang 14: a pointer to the class's named type, which the driver's
			// module does not define; the driver, compiled apart, passes an i8*.
			b.IRType = "i8*"
		}
		return nil
	case (typ == "ptr" || strings.HasSuffix(typ, "*")) && isReference(m, diType):
		// A C++ reference to a scalar: the driver passes the address of a fresh copy.
		elem, err := pointee(m, diType)
		if err != nil {
			return err
		}
		if b.kind != dist.KindInt && b.kind != dist.KindFloat {
			return fmt.Errorf("a reference to a scalar takes a number, not a %s", b.kind)
		}
		b.Ref, b.Elem = true, elem
		return nil
	case typ == "ptr" || strings.HasSuffix(typ, "*"):
		elem, err := pointee(m, diType)
		if err != nil {
			return err
		}
		b.Pointer, b.Elem = true, elem
		if b.kind == dist.KindString {
			if elem.Size != 1 || elem.Float {
				return errors.New("a string input needs a char pointer")
			}
			b.String = true
			return nil
		}
		if !isArrayKind {
			return fmt.Errorf("a pointer takes an array(...) or string(...) input, not %s", article(b.kind))
		}
		return nil
	case strings.HasPrefix(typ, "["):
		n, et, ok := irArray(typ)
		e, ok2 := scalar(et)
		if !ok || !ok2 {
			return errors.New(unfillable(m, diType, "array elements"))
		}
		if !isArrayKind {
			return fmt.Errorf("an array takes an array(...) input (%d elements, row-major), not %s", n, article(b.kind))
		}
		b.Array, b.Elem = n, e
		return nil
	}
	e, ok := scalar(typ)
	if !ok {
		return errors.New(unfillable(m, diType, "a value"))
	}
	if b.kind != dist.KindInt && b.kind != dist.KindFloat {
		return fmt.Errorf("a scalar takes a number, not %s", article(b.kind))
	}
	b.Elem = e
	return nil
}

// article names a kind with its article: "an int array".
func article(k dist.Kind) string {
	if s := k.String(); strings.HasPrefix(s, "int") {
		return "an " + s
	}
	return "a " + k.String()
}

// unfillable says why an object of debug type id cannot be drawn, and what to do.
func unfillable(m *llvmir.Module, id int, what string) string {
	n := arrayElem(m, m.Meta[id])
	kind := "this type"
	if n != nil {
		switch n.Field("tag") {
		case "DW_TAG_structure_type":
			kind = "a struct"
		case "DW_TAG_union_type":
			kind = "a union"
		case "DW_TAG_pointer_type":
			kind = "a pointer inside an array"
		}
	}
	return fmt.Sprintf("%s of %s cannot be drawn (--func fills numbers, strings, and arrays of numbers of any rank from one flat array(...)); "+
		"study a function that takes the fields as numbers or arrays, or fill the %s in a wrapper function and study that", what, kind, kind)
}

// scalar maps an IR scalar type to its description.
func scalar(t string) (Elem, bool) {
	switch t {
	case "i1", "i8":
		return Elem{IRType: t, Size: 1}, true
	case "i16":
		return Elem{IRType: t, Size: 2}, true
	case "i32":
		return Elem{IRType: t, Size: 4}, true
	case "i64":
		return Elem{IRType: t, Size: 8}, true
	case "float":
		return Elem{IRType: t, Size: 4, Float: true}, true
	case "double":
		return Elem{IRType: t, Size: 8, Float: true}, true
	}
	return Elem{}, false
}

// pointee returns the element type of a pointer from its debug type: a scalar, or
// an array of scalars of any rank (int (*)[4], from a parameter int a[][4]), whose
// elements are then filled row-major from one flat array.
func pointee(m *llvmir.Module, id int) (Elem, error) {
	n := m.Meta[id]
	n = strip(m, n)
	if n == nil || n.Kind != "DIDerivedType" || n.Field("tag") != "DW_TAG_pointer_type" && !isReference(m, id) {
		return Elem{}, fmt.Errorf("no debug type for the pointer (compile with -g)")
	}
	if m.Meta[n.Ref("baseType")] == nil {
		return Elem{}, fmt.Errorf("a void pointer cannot be filled: give the parameter its element type")
	}
	base := arrayElem(m, m.Meta[n.Ref("baseType")])
	if base == nil || base.Kind != "DIBasicType" {
		return Elem{}, errors.New(unfillable(m, n.Ref("baseType"), "the pointed-to value"))
	}
	size := base.Int("size") / 8
	float := base.Field("encoding") == "DW_ATE_float"
	var t string
	switch {
	case float && size == 4:
		t = "float"
	case float && size == 8:
		t = "double"
	case !float && (size == 1 || size == 2 || size == 4 || size == 8):
		t = fmt.Sprintf("i%d", 8*size)
	default:
		return Elem{}, fmt.Errorf("elements of type %s cannot be filled", base.Str("name"))
	}
	return Elem{IRType: t, Size: size, Float: float}, nil
}

// isReference reports a C++ reference (T&, T&&) debug type.
func isReference(m *llvmir.Module, id int) bool {
	n := strip(m, m.Meta[id])
	if n == nil || n.Kind != "DIDerivedType" {
		return false
	}
	t := n.Field("tag")
	return t == "DW_TAG_reference_type" || t == "DW_TAG_rvalue_reference_type"
}

// vectorElem returns the element type of a std::vector<T> parameter ("int",
// "double"), passed by reference or by value, from its debug type; "" for any other
// type. The class is recognised by its ODR identifier (_ZTSSt6vectorI...),
// demangled.
func vectorElem(m *llvmir.Module, id int) string {
	n := strip(m, m.Meta[id])
	if isReference(m, id) {
		n = strip(m, m.Meta[n.Ref("baseType")])
	}
	if n == nil || n.Kind != "DICompositeType" {
		return ""
	}
	ident := n.Str("identifier")
	if !strings.HasPrefix(ident, "_ZTSSt6vectorI") {
		return ""
	}
	t := strings.TrimPrefix(cfg.Demangle(ident), "typeinfo name for ")
	if !strings.HasPrefix(t, "std::vector<") {
		return ""
	}
	args := t[len("std::vector<"):]
	depth := 0
	for i, c := range args {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				return strings.TrimSpace(args[:i])
			}
		}
	}
	return ""
}

// cxxScalar maps a C++ scalar type name to its element description. bool is left out
// (std::vector<bool> is a bit set).
func cxxScalar(t string) (Elem, bool) {
	switch t {
	case "char", "signed char", "unsigned char":
		return Elem{IRType: "i8", Size: 1}, true
	case "short", "unsigned short":
		return Elem{IRType: "i16", Size: 2}, true
	case "int", "unsigned int":
		return Elem{IRType: "i32", Size: 4}, true
	case "long", "unsigned long", "long long", "unsigned long long":
		return Elem{IRType: "i64", Size: 8}, true
	case "float":
		return Elem{IRType: "float", Size: 4, Float: true}, true
	case "double":
		return Elem{IRType: "double", Size: 8, Float: true}, true
	}
	return Elem{}, false
}

// writtenParams returns the parameter types of a C++ function as its demangled name
// writes them ("int const&", "std::vector<int, std::allocator<int> > const&"), or
// nil for a C function.
func writtenParams(linkage string) []string {
	d := cfg.Demangle(linkage)
	if d == linkage || !strings.HasSuffix(strings.TrimSuffix(d, " const"), ")") {
		return nil
	}
	d = strings.TrimSuffix(d, " const")
	depth, open := 0, -1
	for i := len(d) - 1; i >= 0; i-- {
		switch d[i] {
		case ')', '>', ']':
			depth++
		case '(', '<', '[':
			depth--
		}
		if depth == 0 {
			open = i
			break
		}
	}
	if open < 0 {
		return nil
	}
	var out []string
	depth, start := 0, open+1
	for i := open + 1; i < len(d)-1; i++ {
		switch d[i] {
		case '(', '<', '[':
			depth++
		case ')', '>', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(d[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(d[start : len(d)-1]); last != "" && last != "void" {
		out = append(out, last)
	}
	return out
}

// strip follows typedefs and const/volatile qualifiers.
func strip(m *llvmir.Module, n *llvmir.MDNode) *llvmir.MDNode {
	for k := 0; n != nil && k < 100; k++ {
		if n.Kind != "DIDerivedType" {
			return n
		}
		switch n.Field("tag") {
		case "DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type", "DW_TAG_restrict_type":
			n = m.Meta[n.Ref("baseType")]
		default:
			return n
		}
	}
	return n
}

// paramNames returns the C names of f's parameters from its DILocalVariables.
func paramNames(m *llvmir.Module, f *llvmir.Func) []string {
	out := make([]string, len(f.Params))
	for _, n := range m.Meta {
		if n.Kind == "DILocalVariable" && n.Ref("scope") == f.Dbg {
			if a := n.Int("arg"); a >= 1 && a <= len(out) {
				out[a-1] = n.Str("name")
			}
		}
	}
	return out
}

// paramDIType returns the debug type of parameter i of f, or -1.
func paramDIType(m *llvmir.Module, f *llvmir.Func, i int) int {
	for _, n := range m.Meta {
		if n.Kind == "DILocalVariable" && n.Ref("scope") == f.Dbg && n.Int("arg") == i+1 {
			return n.Ref("type")
		}
	}
	return -1
}

type global struct {
	typ      string
	extern   bool
	constant bool
}

// moduleGlobals lists the module's global variables by name.
func moduleGlobals(m *llvmir.Module) map[string]global {
	out := map[string]global{}
	for _, l := range m.Lines {
		if !strings.HasPrefix(l, "@") || strings.HasPrefix(l, "@llvm.") || strings.HasPrefix(l, "@__fragprof") {
			continue
		}
		eq := strings.Index(l, " = ")
		if eq < 0 {
			continue
		}
		name := strings.Trim(l[1:eq], `"`)
		rest := strings.Fields(l[eq+3:])
		g := global{}
		for k, w := range rest {
			if w == "external" {
				g.extern = true
			}
			if w == "constant" {
				g.constant = true
			}
			if (w == "global" || w == "constant") && k+1 < len(rest) {
				g.typ = rest[k+1]
				if strings.HasPrefix(g.typ, "[") {
					// "[4 x i32]" spans three fields.
					end := k + 1
					for end < len(rest) && !strings.HasSuffix(rest[end], "]") {
						end++
					}
					if end < len(rest) {
						g.typ = strings.Join(rest[k+1:end+1], " ")
					}
				}
				g.typ = strings.TrimSuffix(g.typ, ",")
				break
			}
		}
		if g.typ == "" {
			continue
		}
		out[name] = g
	}
	return out
}

// Edit returns the build edit that prepares the unit defining the function: the
// function and bound globals made externally visible, and the unit's main set aside.
func (h *Harness) Edit() func(m *llvmir.Module, u *instrument.Unit) error {
	return func(m *llvmir.Module, u *instrument.Unit) error {
		defines := false
		for _, f := range m.Funcs {
			if f.Name == h.Func {
				defines = true
				m.Replace(f.Line, exported(m.Text(f.Line)))
			}
		}
		if !defines {
			return nil
		}
		bound := map[string]bool{}
		for _, b := range h.Bindings {
			if b.Param < 0 && !b.Extern {
				bound[b.Global] = true
			}
		}
		for i, l := range m.Lines {
			if strings.HasPrefix(l, "@") {
				if eq := strings.Index(l, " = "); eq > 0 && bound[strings.Trim(l[1:eq], `"`)] {
					m.Replace(i, exported(m.Text(i)))
				}
			}
			if t := m.Text(i); strings.Contains(t, "@"+instrument.MainName) {
				m.Replace(i, strings.ReplaceAll(t, "@"+instrument.MainName+"(", "@"+SetAsideMain+"("))
			}
		}
		return nil
	}
}

// exported drops internal/private linkage from a definition line.
func exported(line string) string {
	for _, l := range []string{" internal ", " private "} {
		line = strings.Replace(line, l, " ", 1)
	}
	if strings.HasPrefix(line, "define internal ") {
		line = "define " + line[len("define internal "):]
	}
	return line
}

// IR returns the text of the driver module.
func (h *Harness) IR() string {
	var sb strings.Builder
	p := func(t string) string {
		if h.opaque {
			return "ptr"
		}
		return t + "*"
	}
	i8p := p("i8")
	sb.WriteString("; fragprof harness for @" + h.Func + "\n")
	for _, l := range h.triple {
		sb.WriteString(l + "\n")
	}
	fmt.Fprintf(&sb, "declare i64 @__fragprof_in_i64()\ndeclare double @__fragprof_in_f64()\n")
	fmt.Fprintf(&sb, "declare %s @__fragprof_in_array(i32, i32)\ndeclare %s @__fragprof_in_string()\n", i8p, i8p)
	fmt.Fprintf(&sb, "declare void @__fragprof_in_array_into(%s, i64, i32, i32)\n", i8p)
	fmt.Fprintf(&sb, "declare void @__fragprof_in_vector(%s, i32, i32)\n", i8p)
	params := make([]string, h.nparams)
	args := make([]string, h.nparams)
	var body strings.Builder
	tmp := 0
	next := func() string { tmp++; return fmt.Sprintf("%%v%d", tmp) }
	// readScalar emits the read of one scalar of element type e; returns the value.
	readScalar := func(e Elem, src dist.Kind) string {
		v := next()
		if src == dist.KindFloat {
			fmt.Fprintf(&body, "  %s = call double @__fragprof_in_f64()\n", v)
			switch {
			case e.IRType == "double":
				return v
			case e.Float:
				w := next()
				fmt.Fprintf(&body, "  %s = fptrunc double %s to float\n", w, v)
				return w
			default:
				w := next()
				fmt.Fprintf(&body, "  %s = fptosi double %s to %s\n", w, v, e.IRType)
				return w
			}
		}
		fmt.Fprintf(&body, "  %s = call i64 @__fragprof_in_i64()\n", v)
		switch {
		case e.IRType == "i64":
			return v
		case e.Float:
			w := next()
			fmt.Fprintf(&body, "  %s = sitofp i64 %s to %s\n", w, v, e.IRType)
			return w
		default:
			w := next()
			fmt.Fprintf(&body, "  %s = trunc i64 %s to %s\n", w, v, e.IRType)
			return w
		}
	}
	for _, b := range h.Bindings {
		srcFloat := 0
		if b.kind == dist.KindFloatArray || b.kind == dist.KindFloat {
			srcFloat = 1
		}
		float := 0
		if b.Elem.Float {
			float = 1
		}
		code := b.Elem.Size | float<<8 // element size and float flag, as harness.c reads them
		var val string
		switch {
		case b.Pointer && b.String:
			val = next()
			fmt.Fprintf(&body, "  %s = call %s @__fragprof_in_string()\n", val, i8p)
		case b.Pointer:
			val = next()
			fmt.Fprintf(&body, "  %s = call %s @__fragprof_in_array(i32 %d, i32 %d)\n", val, i8p, code, srcFloat)
			if !h.opaque && b.IRType != "i8*" {
				w := next()
				fmt.Fprintf(&body, "  %s = bitcast i8* %s to %s\n", w, val, b.IRType)
				val = w
			}
		case b.Array > 0:
			ref := "@" + b.Global
			if !h.opaque {
				ref = fmt.Sprintf("bitcast (%s* @%s to i8*)", b.IRType, b.Global)
			}
			fmt.Fprintf(&body, "  call void @__fragprof_in_array_into(%s %s, i64 %d, i32 %d, i32 %d)\n", i8p, ref, b.Array, code, srcFloat)
		case b.Vector:
			// libstdc++'s and libc++'s vector: three pointers (begin, end, end of
			// storage), filled by the runtime (runtime/c/harness.c).
			val = next()
			fmt.Fprintf(&body, "  %s = alloca [3 x %s], align 8\n", val, i8p)
			raw := val
			if !h.opaque {
				raw = next()
				fmt.Fprintf(&body, "  %s = bitcast [3 x i8*]* %s to i8*\n", raw, val)
			}
			fmt.Fprintf(&body, "  call void @__fragprof_in_vector(%s %s, i32 %d, i32 %d)\n", i8p, raw, code, srcFloat)
			val = raw
		case b.Ref:
			kind := dist.KindInt
			if srcFloat == 1 {
				kind = dist.KindFloat
			}
			x := readScalar(b.Elem, kind)
			val = next()
			fmt.Fprintf(&body, "  %s = alloca %s, align 8\n  store %s %s, %s %s, align 8\n", val, b.Elem.IRType, b.Elem.IRType, x, p(b.Elem.IRType), val)
		default:
			kind := dist.KindInt
			if srcFloat == 1 {
				kind = dist.KindFloat
			}
			val = readScalar(b.Elem, kind)
		}
		if b.Param >= 0 {
			params[b.Param] = strings.TrimSpace(b.IRType + " " + b.Attrs)
			args[b.Param] = strings.TrimSpace(b.IRType+" "+b.Attrs) + " " + val
		} else if b.Array == 0 {
			fmt.Fprintf(&body, "  store %s %s, %s @%s\n", b.IRType, val, p(b.IRType), b.Global)
		}
	}
	for _, b := range h.Bindings {
		if b.Param < 0 {
			if b.Extern {
				fmt.Fprintf(&sb, "@%s = global %s zeroinitializer\n", b.Global, b.IRType)
			} else {
				fmt.Fprintf(&sb, "@%s = external global %s\n", b.Global, b.IRType)
			}
		}
	}
	ret := h.RetType
	fmt.Fprintf(&sb, "declare %s @%s(%s)\n", ret, h.Func, strings.Join(params, ", "))
	fmt.Fprintf(&sb, "define i32 @%s(i32 %%argc, %s %%argv, %s %%envp) {\nentry:\n", instrument.MainName, p(i8p), p(i8p))
	sb.WriteString(body.String())
	if ret == "void" {
		fmt.Fprintf(&sb, "  call void @%s(%s)\n", h.Func, strings.Join(args, ", "))
	} else {
		fmt.Fprintf(&sb, "  %%r = call %s @%s(%s)\n", ret, h.Func, strings.Join(args, ", "))
	}
	sb.WriteString("  ret i32 0\n}\n")
	// The program's own main, if it has one, calls the runtime too and wins.
	sb.WriteString(instrument.MainStub(h.opaque, "weak"))
	return sb.String()
}

// Encode appends the binary input stream of one trial (the layout in the package
// comment) to dst.
func (h *Harness) Encode(dst []byte, s *dist.Sample) []byte {
	le := binary.LittleEndian
	for _, b := range h.Bindings {
		v := s.Values[b.index]
		switch v.Kind {
		case dist.KindInt:
			dst = le.AppendUint64(dst, uint64(v.Int))
		case dist.KindFloat:
			dst = le.AppendUint64(dst, math.Float64bits(v.Float))
		case dist.KindIntArray:
			dst = le.AppendUint64(dst, uint64(len(v.Ints)))
			for _, x := range v.Ints {
				dst = le.AppendUint64(dst, uint64(x))
			}
		case dist.KindFloatArray:
			dst = le.AppendUint64(dst, uint64(len(v.Floats)))
			for _, x := range v.Floats {
				dst = le.AppendUint64(dst, math.Float64bits(x))
			}
		case dist.KindString:
			dst = le.AppendUint64(dst, uint64(len(v.Bytes)))
			dst = append(dst, v.Bytes...)
		}
	}
	return dst
}
