// This file implements the reader: lines → functions, blocks, instructions, targets.

package llvmir

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

var (
	reDbg      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!dbg !(\d+)`) }) // for error positions only; the reader uses lastDbg
	reMetaDef  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^!(\d+) = `) })
	reNumbered = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%(\d+)\b`) })
)

// Parse reads a module. file names the IR in error messages. The module keeps data's
// bytes: data must not be modified afterwards. It fails only on text
// inside a function body that it cannot place (a stray line, an unterminated block,
// a branch to an unknown label); everything else is kept verbatim.
//
// The pointer dialect (Module.Opaque) is read from the pointer operand of the first
// load or store, the one place where the type printed is always a pointer type:
// "ptr" in the opaque dialect, "T*" in the typed one. Callers that know which clang
// printed the module, and with which flags, say so with ParseDialect instead.
func Parse(file string, data []byte) (*Module, error) {
	m, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	m.Opaque = opaqueOperands(m)
	return m, nil
}

// ParseDialect reads a module printed in the given pointer dialect: opaque (ptr), as
// clang ≥ 15 prints by default, or typed (i8*), as clang 14 does. The dialect is a
// property of the compiler and its flags (build.Toolchain.OpaquePointers), not of the
// text: a typed module may well contain " ptr " in a string or a name. Like Parse,
// it keeps data's bytes.
func ParseDialect(file string, data []byte, opaque bool) (*Module, error) {
	m, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	m.Opaque = opaque
	return m, nil
}

// opaqueOperands reports whether the first load or store of m has an opaque pointer
// operand (false for a module with neither).
func opaqueOperands(m *Module) bool {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Op != "load" && in.Op != "store" {
					continue
				}
				// load [volatile] T, PTRTYPE %p ...; store [volatile] T %v, PTRTYPE %p ...
				// The pointer operand follows the first top-level comma.
				ops := strings.TrimSpace(m.Lines[in.Line])
				if k := topLevelComma(ops); k >= 0 {
					rest := strings.TrimSpace(ops[k+1:])
					return strings.HasPrefix(rest, "ptr ") || strings.HasPrefix(rest, "ptr addrspace(")
				}
			}
		}
	}
	return false
}

// topLevelComma returns the index of the first comma of s outside brackets, or -1.
func topLevelComma(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		case '"':
			if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		}
	}
	return -1
}

func parse(file string, data []byte) (*Module, error) {
	// The lines share data's bytes rather than a copy (a 47 MB module such as
	// sqlite3.c's would otherwise be held twice): callers hand data over.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	m := &Module{Meta: map[int]*MDNode{}}
	m.FinalNewline = strings.HasSuffix(text, "\n")
	text = strings.TrimSuffix(text, "\n")
	if text == "" && !m.FinalNewline {
		m.Lines = nil
	} else {
		m.Lines = strings.Split(text, "\n")
	}
	for i := 0; i < len(m.Lines); i++ {
		line := m.Lines[i]
		switch {
		case strings.HasPrefix(line, "define "):
			f, end, err := parseFunc(m, i)
			if err != nil {
				if e, ok := err.(*Error); ok {
					e.File = file
					e.SrcLine, e.SrcCol = sourcePos(m.Lines, e.Line-1)
				}
				return nil, err
			}
			m.Funcs = append(m.Funcs, f)
			i = end
		case strings.HasPrefix(line, "!"):
			if sm := reMetaDef().FindStringSubmatch(line); sm != nil {
				n, _ := strconv.Atoi(sm[1])
				m.Meta[n] = parseMD(line[len(sm[0]):])
				if n > m.maxMeta {
					m.maxMeta = n
				}
			}
		case strings.HasPrefix(line, "source_filename = "):
			if s, ok := unquote(strings.TrimPrefix(line, "source_filename = ")); ok {
				m.SourceFilename = s
			}
		}
	}
	return m, nil
}

// parseFunc reads the definition starting at line i and returns it with the index of
// its closing brace.
func parseFunc(m *Module, i int) (*Func, int, error) {
	def := m.Lines[i]
	f := &Func{Line: i, Dbg: -1}
	name, rest, ok := globalName(def)
	if !ok {
		return nil, 0, &Error{Line: i + 1, Msg: "cannot find the function name in: " + def}
	}
	f.Name = name
	f.RetType = retType(def[:strings.Index(def, "@")])
	f.Params, f.Variadic = splitParams(rest)
	if !strings.HasSuffix(strings.TrimRight(def, " "), "{") {
		return nil, 0, &Error{Line: i + 1, Func: name, Msg: "function body does not open on the define line"}
	}
	if sm := regexp.MustCompile(`\)[^(]*!dbg !(\d+)`).FindStringSubmatch(def); sm != nil {
		f.Dbg, _ = strconv.Atoi(sm[1])
	}
	// An unnamed entry block takes the number after the numbered parameters.
	entryNum := 0
	for _, p := range f.Params {
		if n, err := strconv.Atoi(strings.TrimPrefix(p.Name, "%")); err == nil && n+1 > entryNum {
			entryNum = n + 1
		}
	}
	var cur *Block
	j := i + 1
	for ; j < len(m.Lines); j++ {
		line := m.Lines[j]
		trimmed := strings.TrimSpace(line)
		switch {
		case line == "}":
			if cur != nil {
				return nil, 0, &Error{Line: j + 1, Func: name, Msg: "block " + cur.Name + " has no terminator"}
			}
			if len(f.Blocks) == 0 {
				return nil, 0, &Error{Line: j + 1, Func: name, Msg: "function has no blocks"}
			}
			f.EndLine = j
			if err := checkTargets(f); err != nil {
				return nil, 0, err
			}
			return f, j, nil
		case trimmed == "" || strings.HasPrefix(trimmed, ";"):
			continue
		case line[0] != ' ' && line[0] != '\t':
			label, ok := blockLabel(line)
			if !ok {
				return nil, 0, &Error{Line: j + 1, Func: name, Msg: "unexpected text in a function body: " + line}
			}
			if cur != nil {
				return nil, 0, &Error{Line: j + 1, Func: name, Msg: "block " + cur.Name + " has no terminator before label " + label}
			}
			cur = &Block{Name: label, LabelLine: j}
			f.Blocks = append(f.Blocks, cur)
		default:
			if cur == nil {
				if len(f.Blocks) > 0 {
					return nil, 0, &Error{Line: j + 1, Func: name, Msg: "instruction outside any block"}
				}
				cur = &Block{Name: strconv.Itoa(entryNum), LabelLine: -1}
				f.Blocks = append(f.Blocks, cur)
			}
			in, end, err := parseInstr(m.Lines, j)
			if err != nil {
				err.Func = name
				return nil, 0, err
			}
			cur.Instrs = append(cur.Instrs, in)
			j = end
			if (in.Op == "call" || in.Op == "invoke") && isReturnsTwice(in.Callee) {
				f.CallsSetjmp = true
			}
			if IsTerminator(in.Op) {
				cur = nil
			}
		}
	}
	return nil, 0, &Error{Line: i + 1, Func: name, Msg: "function body is not closed"}
}

func isReturnsTwice(callee string) bool {
	switch callee {
	case "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "vfork", "getcontext",
		"fork": // a forked child counts afresh from the middle of the calling block
		return true
	}
	return false
}

// checkTargets verifies that every target names a block of f.
func checkTargets(f *Func) error {
	names := map[string]bool{}
	for _, b := range f.Blocks {
		if names[b.Name] {
			return &Error{Line: b.LabelLine + 1, Func: f.Name, Msg: "duplicate block label " + b.Name}
		}
		names[b.Name] = true
	}
	for _, b := range f.Blocks {
		t := b.Term()
		for _, tg := range t.Targets {
			if !names[tg.Label] {
				return &Error{Line: t.Line + 1, Func: f.Name, Msg: "branch to unknown block %" + tg.Label}
			}
		}
	}
	return nil
}

// blockLabel parses a label line: "name:" or "\"quoted\":" or "12:", with an
// optional trailing comment.
func blockLabel(line string) (string, bool) {
	if strings.HasPrefix(line, `"`) {
		s, rest, ok := quotedPrefix(line)
		if !ok || !strings.HasPrefix(rest, ":") {
			return "", false
		}
		return s, true
	}
	k := strings.IndexByte(line, ':')
	if k <= 0 {
		return "", false
	}
	label := line[:k]
	for _, c := range label {
		if !isIdentChar(c) {
			return "", false
		}
	}
	after := strings.TrimSpace(line[k+1:])
	if after != "" && !strings.HasPrefix(after, ";") {
		return "", false
	}
	return label, true
}

func isIdentChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == '$'
}

// parseInstr reads the instruction at line j (a switch may continue on further lines)
// and returns it with the index of its last line.
func parseInstr(lines []string, j int) (*Instr, int, *Error) {
	line := strings.TrimSpace(lines[j])
	in := &Instr{Line: j, EndLine: j, Dbg: -1}
	body := line
	if strings.HasPrefix(body, "%") {
		k := strings.Index(body, " = ")
		if k < 0 {
			return nil, 0, &Error{Line: j + 1, Msg: "cannot read instruction: " + line}
		}
		in.Result = body[:k]
		body = body[k+3:]
	}
	op := firstWord(body)
	switch op {
	case "tail", "musttail", "notail":
		op = firstWord(strings.TrimSpace(body[len(op):]))
	}
	in.Op = op
	// invoke, callbr and landingpad continue on indented lines that start with a
	// keyword no instruction starts with ("to label", "unwind", "catch", "filter",
	// "cleanup").
	for k := j + 1; k < len(lines) && isContinuation(lines[k]); k++ {
		line += " " + strings.TrimSpace(lines[k])
		in.EndLine = k
	}
	if op == "switch" && strings.HasSuffix(line, "[") {
		// Multi-line: cases until a line that starts with "]".
		var sb strings.Builder
		sb.WriteString(line)
		k := j + 1
		for ; k < len(lines); k++ {
			t := strings.TrimSpace(lines[k])
			sb.WriteByte(' ')
			sb.WriteString(t)
			if strings.HasPrefix(t, "]") {
				break
			}
		}
		if k == len(lines) {
			return nil, 0, &Error{Line: j + 1, Msg: "switch is not closed"}
		}
		in.EndLine = k
		line = sb.String()
	}
	in.Dbg = lastDbg(tailAttachments(line))
	var err error
	switch op {
	case "br":
		in.Targets, err = brTargets(body)
	case "switch":
		in.Targets, err = switchTargets(line)
	case "indirectbr":
		in.Targets, err = indirectTargets(line)
	case "call", "invoke":
		// The callee is the first @name followed by its arguments; an @name in
		// inline assembly's operands is not one.
		if k := strings.IndexByte(body, '@'); k >= 0 && !strings.Contains(body[:k], " asm ") {
			if n, rest, ok := localName(body[k+1:]); ok && strings.HasPrefix(rest, "(") {
				in.Callee = n
			}
		}
		if op == "invoke" {
			in.Targets, err = invokeTargets(line)
		}
	case "callbr":
		in.Targets, err = callbrTargets(line)
	case "catchswitch":
		in.Targets, err = catchswitchTargets(line)
	case "catchret":
		in.Targets, err = tailTargets(line, " to label ", Uncond)
	case "cleanupret":
		in.Targets, err = tailTargets(line, " unwind label ", Unwind)
	}
	if err != nil {
		return nil, 0, &Error{Line: j + 1, Msg: err.Error() + ": " + line}
	}
	return in, in.EndLine, nil
}

// lastDbg returns N of the last "!dbg !N" in s, or -1 (without a regular
// expression's allocations on every instruction).
func lastDbg(s string) int {
	for {
		k := strings.LastIndex(s, "!dbg !")
		if k < 0 {
			return -1
		}
		j := k + len("!dbg !")
		e := j
		for e < len(s) && s[e] >= '0' && s[e] <= '9' {
			e++
		}
		if e > j {
			n, _ := strconv.Atoi(s[j:e])
			return n
		}
		s = s[:k]
	}
}

// tailAttachments returns the part of an instruction line that may hold metadata
// attachments: everything after the last closing bracket or parenthesis of the
// operands, so that metadata inside call arguments is not mistaken for them.
func tailAttachments(line string) string {
	if k := strings.LastIndexAny(line, ")]}"); k >= 0 {
		return line[k:]
	}
	return line
}

func firstWord(s string) string {
	if k := strings.IndexAny(s, " \t,"); k >= 0 {
		return s[:k]
	}
	return s
}

type parseErr string

func (e parseErr) Error() string { return string(e) }

// labelRefs returns the labels of every "label %x" operand in s, in order.
func labelRefs(s string) ([]string, error) {
	var out []string
	for {
		k := strings.Index(s, "label %")
		if k < 0 {
			return out, nil
		}
		s = s[k+len("label %"):]
		name, rest, ok := localName(s)
		if !ok {
			return nil, parseErr("cannot read a label operand")
		}
		out = append(out, name)
		s = rest
	}
}

// isContinuation reports a line that continues the instruction above it.
func isContinuation(line string) bool {
	if line == "" || line[0] != ' ' && line[0] != '\t' {
		return false
	}
	t := strings.TrimSpace(line)
	for _, w := range []string{"to label ", "unwind ", "catch ", "filter ", "cleanup"} {
		if strings.HasPrefix(t, w) {
			return w != "cleanup" || len(t) == len(w) || t[len(w)] == ',' || t[len(w)] == ' '
		}
	}
	return false
}

// invokeTargets reads "... to label %normal unwind label %lpad".
func invokeTargets(line string) ([]Target, error) {
	k := strings.LastIndex(line, " to label %")
	if k < 0 {
		return nil, parseErr("invoke without 'to label'")
	}
	ls, err := labelRefs(line[k:])
	if err != nil || len(ls) != 2 || !strings.Contains(line[k:], " unwind label %") {
		return nil, parseErr("invoke without a normal and an unwind label")
	}
	return []Target{{Label: ls[0], Kind: Uncond}, {Label: ls[1], Kind: Unwind}}, nil
}

// callbrTargets reads "... to label %fallthrough [label %a, label %b]".
func callbrTargets(line string) ([]Target, error) {
	k := strings.LastIndex(line, " to label %")
	if k < 0 {
		return nil, parseErr("callbr without 'to label'")
	}
	ls, err := labelRefs(line[k:])
	if err != nil || len(ls) == 0 {
		return nil, parseErr("callbr without a default label")
	}
	out := []Target{{Label: ls[0], Kind: Uncond}}
	for _, l := range ls[1:] {
		out = append(out, Target{Label: l, Kind: IndirectDest})
	}
	return out, nil
}

// catchswitchTargets reads "catchswitch within %p [label %h, ...] unwind label %x"
// (or "unwind to caller"): the handlers, then the unwind destination.
func catchswitchTargets(line string) ([]Target, error) {
	ls, err := labelRefs(line)
	if err != nil || len(ls) == 0 {
		return nil, parseErr("catchswitch without handlers")
	}
	out := make([]Target, len(ls))
	for i, l := range ls {
		out[i] = Target{Label: l, Kind: Unwind}
	}
	return out, nil
}

// tailTargets reads the one label after key, if the line has it ("unwind to caller"
// has none).
func tailTargets(line, key string, kind TargetKind) ([]Target, error) {
	k := strings.LastIndex(line, key)
	if k < 0 {
		return nil, nil
	}
	ls, err := labelRefs(line[k:])
	if err != nil || len(ls) != 1 {
		return nil, parseErr("cannot read the destination")
	}
	return []Target{{Label: ls[0], Kind: kind}}, nil
}

func brTargets(body string) ([]Target, error) {
	ls, err := labelRefs(body)
	if err != nil {
		return nil, err
	}
	switch len(ls) {
	case 1:
		return []Target{{Label: ls[0], Kind: Uncond}}, nil
	case 2:
		return []Target{{Label: ls[0], Kind: CondTrue}, {Label: ls[1], Kind: CondFalse}}, nil
	}
	return nil, parseErr("br with " + strconv.Itoa(len(ls)) + " labels")
}

func switchTargets(line string) ([]Target, error) {
	open := strings.Index(line, "[")
	if open < 0 {
		return nil, parseErr("switch without a case list")
	}
	head, cases := line[:open], line[open+1:]
	if k := strings.LastIndex(cases, "]"); k >= 0 {
		cases = cases[:k]
	} else {
		return nil, parseErr("switch case list not closed")
	}
	dl, err := labelRefs(head)
	if err != nil || len(dl) != 1 {
		return nil, parseErr("switch without a default label")
	}
	out := []Target{{Label: dl[0], Kind: SwitchDefault}}
	// Cases are "TYPE VALUE, label %L" separated by spaces.
	for {
		k := strings.Index(cases, ", label %")
		if k < 0 {
			break
		}
		val := strings.TrimSpace(cases[:k])
		if sp := strings.LastIndex(val, " "); sp >= 0 {
			val = val[sp+1:]
		}
		name, rest, ok := localName(cases[k+len(", label %"):])
		if !ok {
			return nil, parseErr("cannot read a switch case label")
		}
		out = append(out, Target{Label: name, Kind: SwitchCase, Case: val})
		cases = rest
	}
	if strings.TrimSpace(cases) != "" {
		return nil, parseErr("cannot read switch cases")
	}
	return out, nil
}

func indirectTargets(line string) ([]Target, error) {
	open := strings.Index(line, "[")
	if open < 0 {
		return nil, parseErr("indirectbr without a destination list")
	}
	ls, err := labelRefs(line[open:])
	if err != nil {
		return nil, err
	}
	out := make([]Target, len(ls))
	for i, l := range ls {
		out[i] = Target{Label: l, Kind: IndirectDest}
	}
	return out, nil
}

// localName reads an identifier or quoted name at the start of s (after a % sigil).
func localName(s string) (name, rest string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		return quotedPrefix(s)
	}
	k := 0
	for k < len(s) && isIdentChar(rune(s[k])) {
		k++
	}
	if k == 0 {
		return "", s, false
	}
	return s[:k], s[k:], true
}

// globalName finds the first @name in s and returns it and the text after it.
func globalName(s string) (name, rest string, ok bool) {
	k := strings.IndexByte(s, '@')
	if k < 0 {
		return "", "", false
	}
	return localName(s[k+1:])
}

// quotedPrefix reads a "quoted" LLVM name with \XX escapes at the start of s.
func quotedPrefix(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", s, false
	}
	raw := s[1 : 1+end]
	u, ok := unescape(raw)
	return u, s[end+2:], ok
}

// unquote reads a whole quoted string.
func unquote(s string) (string, bool) {
	name, rest, ok := quotedPrefix(strings.TrimSpace(s))
	return name, ok && strings.TrimSpace(rest) == ""
}

// unescape decodes LLVM's \XX hex escapes and \\.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			sb.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			sb.WriteByte('\\')
			i++
			continue
		}
		if i+2 >= len(s) {
			return s, false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return s, false
		}
		sb.WriteByte(byte(v))
		i += 2
	}
	return sb.String(), true
}

// retType extracts the return type from the part of a define line before the name.
func retType(head string) string {
	h := strings.TrimRight(head, " ")
	i := len(h)
	for i > 0 && h[i-1] == '*' {
		i-- // pointer stars
	}
	if i > 0 && strings.IndexByte("}]>)", h[i-1]) >= 0 {
		// A bracketed type: a struct ({ i64, i32 }, <{ ... }>), an array, a vector,
		// or a function type whose return type comes before it.
		depth, j := 0, i-1
		for ; j >= 0; j-- {
			switch h[j] {
			case '}', ']', '>', ')':
				depth++
			case '{', '[', '<', '(':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		switch {
		case j < 0:
		case h[j] == '(':
			return retType(h[:j]) + " " + h[j:]
		case h[j] == '{' && j > 0 && h[j-1] == '<':
			return h[j-1:]
		default:
			return h[j:]
		}
	}
	fields := strings.Fields(h)
	if len(fields) == 0 {
		return ""
	}
	return fields[len(fields)-1]
}

// splitParams reads the parameter list that follows a function name, and whether
// it ends in "...".
func splitParams(rest string) (ps []Param, variadic bool) {
	if !strings.HasPrefix(rest, "(") {
		return nil, false
	}
	depth := 0
	var parts []string
	start := 1
	end := -1
	for i, c := range rest {
		switch c {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
			if depth == 0 && c == ')' {
				parts = append(parts, rest[start:i])
				end = i
			}
		case ',':
			if depth == 1 {
				parts = append(parts, rest[start:i])
				start = i + 1
			}
		}
		if end >= 0 {
			break
		}
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "..." {
			variadic = true
		}
		if p == "" || p == "..." {
			continue
		}
		// Types such as "{ i32, i32 }", "[2 x i64]" or "[4 x i32]*" span several
		// fields: the type ends after its closing bracket and any '*'.
		typ := ""
		if p[0] == '{' || p[0] == '[' || p[0] == '<' {
			depth, k := 0, 0
			for k = 0; k < len(p); k++ {
				if c := p[k]; c == '{' || c == '[' || c == '<' {
					depth++
				} else if c == '}' || c == ']' || c == '>' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			for k++; k < len(p) && p[k] == '*'; k++ {
			}
			typ, p = p[:min(k, len(p))], p[min(k, len(p)):]
		}
		fs := strings.Fields(p)
		if typ == "" {
			typ, fs = fs[0], fs[1:]
		}
		prm := Param{Type: typ}
		if len(fs) > 0 && strings.HasPrefix(fs[len(fs)-1], "%") {
			prm.Name = fs[len(fs)-1]
			fs = fs[:len(fs)-1]
		}
		if len(fs) > 0 {
			prm.Attrs = strings.Join(fs, " ")
		}
		ps = append(ps, prm)
	}
	return ps, variadic
}

var reLocLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^!(\d+) = !DILocation\(line: (\d+)(?:, column: (\d+))?`)
})

// sourcePos returns the source line and column of IR line i from its !dbg
// DILocation, looked up in the module's text (for errors, before the metadata is
// read); 0, 0 when the line has none.
func sourcePos(lines []string, i int) (line, col int) {
	if i < 0 || i >= len(lines) {
		return 0, 0
	}
	// An instruction may continue on the next lines (callbr's "to label ...", a
	// switch's cases), which are indented deeper; its !dbg is on the last.
	sm := reDbg().FindStringSubmatch(lines[i])
	for k := i + 1; sm == nil && k < len(lines) && k <= i+64 && strings.HasPrefix(lines[k], "    "); k++ {
		sm = reDbg().FindStringSubmatch(lines[k])
	}
	if sm == nil {
		return 0, 0
	}
	prefix := "!" + sm[1] + " = !DILocation("
	for k := len(lines) - 1; k >= 0; k-- {
		if strings.HasPrefix(lines[k], prefix) {
			if m := reLocLine().FindStringSubmatch(lines[k]); m != nil {
				line, _ = strconv.Atoi(m[2])
				col, _ = strconv.Atoi(m[3])
				return line, col
			}
		}
	}
	return 0, 0
}
