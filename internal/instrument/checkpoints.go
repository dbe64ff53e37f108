// This file implements automatic checkpoints (fragprof trace --auto-checkpoints):
// for programs where nobody marked FP_POINT, a checkpoint at a function's entry
// (recording its scalar parameters), before its returns (recording the returned
// scalar) and at the top of loop headers (natural loops, cfg.FindLoops) — by
// default only the outermost loops and the functions not called from loops
// (AutoOuter), or all of them (AutoAll).

package instrument

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// AutoCheckpoints schedules the automatic checkpoints of m as text edits, where they
// cost little: the outermost level of every loop nest and the functions not called
// from a loop (AutoOuter). It has the signature of build.Edit and runs after Module
// (the counters): u is not used.
func AutoCheckpoints(m *llvmir.Module, u *Unit) error { return autoCheckpoints(m, AutoOuter) }

// AutoCheckpointsAll places a checkpoint at every function entry and return and
// every loop header (AutoAll): one event per iteration of every inner loop.
func AutoCheckpointsAll(m *llvmir.Module, u *Unit) error { return autoCheckpoints(m, AutoAll) }

// An AutoLevel says where automatic checkpoints go.
type AutoLevel int

// The levels.
const (
	// AutoOuter marks the outermost loop of every nest only (an inner loop is
	// summarised by its outermost loop's iterations: the model learns "one
	// iteration costs c·n²" as well from one checkpoint per outer iteration as
	// from n² of them, and the program is not slowed n² times; a loop without
	// inner loops, whose iterations are cheap, is summarised by the checkpoints
	// around it), and the entries and returns of the
	// functions that are not hot: a function is hot when it is called from
	// inside a loop, calls itself, or is called by a hot function — its
	// checkpoints would pass once per iteration or recursion.
	AutoOuter AutoLevel = iota
	// AutoAll marks every function and every loop header.
	AutoAll
)

// autoCheckpoints schedules the checkpoints of level lv.
//
// Checkpoints are named "f" (entry of function f), "f:ret" (its returns) and
// "f:loop@L" (the header of a loop whose header starts on source line L; ".2", ".3"
// for further loops on that line). Parameters and return values of integer and
// floating types are recorded as "f.param" and "f.ret". Each checkpoint is a call
// to __fragprof_point_auto (runtime/c/trace.c), which costs nothing measurable
// unless the program runs under fragprof trace.
func autoCheckpoints(m *llvmir.Module, lv AutoLevel) error {
	a := &autoWriter{m: m, level: lv}
	if lv == AutoOuter {
		a.hot = hotFunctions(m)
	}
	for _, f := range m.Funcs {
		def := m.Lines[f.Line]
		if strings.Contains(def, " available_externally ") || strings.Contains(def, " naked ") {
			continue
		}
		if strings.HasPrefix(f.Name, "__fragprof") || strings.HasPrefix(f.Name, "llvm.") {
			continue
		}
		if err := a.function(f); err != nil {
			return err
		}
	}
	if a.n > 0 {
		a.finish()
	}
	return nil
}

// hotFunctions returns the functions of m called from inside a loop of a
// function of m, calling themselves, or called by such a function (the closure).
// main (the program's, renamed or not) is never hot.
func hotFunctions(m *llvmir.Module) map[string]bool {
	hot := map[string]bool{}
	calls := map[string][]string{}
	for _, f := range m.Funcs {
		g := m.CFG(f)
		loops := g.FindLoops()
		inLoop := make([]bool, len(f.Blocks))
		for _, l := range loops.Loops {
			for _, b := range l.Blocks {
				inLoop[b.ID] = true
			}
		}
		for i, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Callee == "" || strings.HasPrefix(in.Callee, "llvm.") || strings.HasPrefix(in.Callee, "__fragprof") {
					continue
				}
				calls[f.Name] = append(calls[f.Name], in.Callee)
				if inLoop[i] || in.Callee == f.Name {
					hot[in.Callee] = true
				}
			}
		}
	}
	work := make([]string, 0, len(hot))
	for f := range hot {
		work = append(work, f)
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range calls[f] {
			if !hot[c] {
				hot[c] = true
				work = append(work, c)
			}
		}
	}
	delete(hot, "main")
	delete(hot, "__fragprof_main")
	return hot
}

type autoWriter struct {
	m      *llvmir.Module
	level  AutoLevel
	hot    map[string]bool // AutoOuter: functions left unmarked
	n      int             // checkpoints so far (globals @__fp.site.N, @__fp.desc.N)
	tmp    int             // temporaries
	gl     strings.Builder
	source string
}

// autoVal is one recorded value: its IR type and operand, and its name.
type autoVal struct {
	typ, op, name string
	unsigned      bool
}

func (a *autoWriter) function(f *llvmir.Func) error {
	if a.hot[f.Name] {
		return nil
	}
	g := a.m.CFG(f)
	file := g.File
	if file == "" {
		file = a.m.SourceFilename
	}
	def := a.m.Lines[f.Line]
	// Entry: after the leading allocas, so static allocas stay together.
	entry := f.Blocks[0]
	k := 0
	for k < len(entry.Instrs)-1 && entry.Instrs[k].Op == "alloca" {
		k++
	}
	var params []autoVal
	for _, p := range f.Params {
		if !strings.HasPrefix(p.Name, "%") || isNumber(p.Name[1:]) {
			continue // unnamed: %0
		}
		params = append(params, autoVal{typ: p.Type, op: p.Name, name: f.Name + "." + strings.Trim(p.Name[1:], `"`),
			unsigned: strings.Contains(def, "zeroext "+p.Name)})
	}
	a.point(entry.Instrs[k].Line, f.Name, file, g.Line, params)
	// Loop headers.
	loops := g.FindLoops()
	var headers []int
	nest := map[*cfg.Loop]bool{} // outermost loops that hold another
	for _, l := range loops.Loops {
		if l.Parent != nil {
			out := l.Parent
			for out.Parent != nil {
				out = out.Parent
			}
			nest[out] = true
		}
	}
	for _, l := range loops.Loops {
		if a.level == AutoAll || nest[l] {
			headers = append(headers, l.Header.ID)
		}
	}
	sort.Ints(headers)
	seen := map[int]int{}
	for _, h := range headers {
		b := f.Blocks[h]
		line := g.Blocks[h].Start.Line
		seen[line]++
		name := fmt.Sprintf("%s:loop@%d", f.Name, line)
		if seen[line] > 1 {
			name += fmt.Sprintf(".%d", seen[line])
		}
		a.point(b.Instrs[b.FirstNonPhi()].Line, name, file, line, nil)
	}
	// Returns.
	for i, b := range f.Blocks {
		t := b.Term()
		if t.Op != "ret" {
			continue
		}
		var vals []autoVal
		if typ, op, ok := retOperand(a.m.Lines[t.Line]); ok {
			vals = append(vals, autoVal{typ: typ, op: op, name: f.Name + ".ret"})
		}
		line := g.Blocks[i].End.Line
		if line == 0 {
			line = g.Line
		}
		a.point(t.Line, f.Name+":ret", file, line, vals)
	}
	return nil
}

// point inserts a checkpoint before IR line at.
func (a *autoWriter) point(at int, name, file string, line int, vals []autoVal) {
	a.n++
	id := a.n
	var conv strings.Builder
	var args []string
	kinds := ""
	var names []string
	for _, v := range vals {
		a.tmp++
		t := fmt.Sprintf("%%__fpa.%d", a.tmp)
		switch v.typ {
		case "i64":
			args = append(args, "i64 "+v.op)
			kinds += "i"
		case "i32", "i16", "i8":
			ext := "sext"
			kinds += "i"
			if v.unsigned {
				ext = "zext"
				kinds = kinds[:len(kinds)-1] + "u"
			}
			fmt.Fprintf(&conv, "  %s = %s %s %s to i64\n", t, ext, v.typ, v.op)
			args = append(args, "i64 "+t)
		case "double":
			fmt.Fprintf(&conv, "  %s = bitcast double %s to i64\n", t, v.op)
			args = append(args, "i64 "+t)
			kinds += "d"
		case "float":
			fmt.Fprintf(&conv, "  %s.d = fpext float %s to double\n  %s = bitcast double %s.d to i64\n", t, v.op, t, t)
			args = append(args, "i64 "+t)
			kinds += "d"
		default:
			continue // pointers, vectors, i1, i128, aggregates: not recorded
		}
		names = append(names, v.name)
	}
	desc := name + "\x00" + file + "\x00" + strconv.Itoa(line) + "\x00" + kinds + "\x00"
	for _, n := range names {
		desc += n + "\x00"
	}
	i8p, i32p := a.ptr("i8"), a.ptr("i32")
	descT := fmt.Sprintf("[%d x i8]", len(desc))
	fmt.Fprintf(&a.gl, "@__fp.site.%d = internal global i32 0, align 4\n", id)
	fmt.Fprintf(&a.gl, "@__fp.desc.%d = private unnamed_addr constant %s c\"%s\", align 1\n", id, descT, llvmir.EscapeString([]byte(desc)))
	descRef := fmt.Sprintf("@__fp.desc.%d", id)
	if !a.m.Opaque {
		descRef = fmt.Sprintf("getelementptr inbounds (%s, %s* @__fp.desc.%d, i64 0, i64 0)", descT, descT, id)
	}
	call := fmt.Sprintf("  call void (%s, %s, i32, ...) @__fragprof_point_auto(%s @__fp.site.%d, %s %s, i32 %d",
		i32p, i8p, i32p, id, i8p, descRef, len(args))
	for _, x := range args {
		call += ", " + x
	}
	call += ")"
	a.m.InsertBefore(at, conv.String()+call)
}

func (a *autoWriter) ptr(elem string) string {
	if a.m.Opaque {
		return "ptr"
	}
	return elem + "*"
}

func (a *autoWriter) finish() {
	fmt.Fprintf(&a.gl, "declare void @__fragprof_point_auto(%s, %s, i32, ...)", a.ptr("i32"), a.ptr("i8"))
	a.m.Append("\n; fragprof: automatic checkpoints\n" + a.gl.String())
}

// retOperand reads "ret TYPE VALUE[, !dbg ...]" and returns the type and value when
// the value is a plain operand (a local or a number) of a type worth recording.
func retOperand(line string) (typ, op string, ok bool) {
	s := strings.TrimSpace(line)
	s, ok = strings.CutPrefix(s, "ret ")
	if !ok {
		return "", "", false
	}
	if i := strings.Index(s, ", !"); i >= 0 {
		s = s[:i]
	}
	f := strings.Fields(s)
	if len(f) != 2 {
		return "", "", false
	}
	switch f[0] {
	case "i8", "i16", "i32", "i64", "float", "double":
	default:
		return "", "", false
	}
	v := f[1]
	if strings.HasPrefix(v, "%") || isNumber(strings.TrimPrefix(v, "-")) {
		return f[0], v, true
	}
	return "", "", false
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' && c != 'e' && c != '+' && c != '-' {
			return false
		}
	}
	return true
}
