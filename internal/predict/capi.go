// This file writes a model for the C API (runtime/c/fragprof_model.h): its
// runtime form, a text of numbers and length-prefixed strings with every name
// resolved to a position in the state, which the C library reads (a .fpm file)
// or a compiled-in C source embeds (CSource). It holds what `model predict`
// computes with — the graph, the rules, the time and data formulas, the
// calibration, the direct models, the chosen predictor's interval, the
// training ranges and the working-set model — and nothing that only `model
// show` prints.

package predict

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/predict/regress"
)

// RuntimeVersion is the version of the runtime form; the C library refuses a
// newer one.
const RuntimeVersion = 1

// rtWriter writes the tokens of the runtime form.
type rtWriter struct {
	b   *bufio.Writer
	err error
}

func (w *rtWriter) tok(s string)  { w.b.WriteString(s); w.b.WriteByte(' ') }
func (w *rtWriter) int(i int)     { w.tok(strconv.Itoa(i)) }
func (w *rtWriter) num(x float64) { w.tok(strconv.FormatFloat(x, 'g', -1, 64)) }
func (w *rtWriter) str(s string)  { w.tok(strconv.Itoa(len(s)) + ":" + s) }
func (w *rtWriter) nl()           { w.b.WriteByte('\n') }
func (w *rtWriter) bool(b bool) {
	if b {
		w.int(1)
	} else {
		w.int(0)
	}
}
func (w *rtWriter) fail(f string, a ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(f, a...)
	}
}

// WriteRuntime writes the model's runtime form (docs/predict.md, "In the
// program"). It fails, naming the part, on anything the C evaluator does not
// compute exactly as the interpreter does.
func (m *Model) WriteRuntime(out io.Writer) error {
	w := &rtWriter{b: bufio.NewWriter(out)}
	sp := m.space
	w.tok("fragprof-model-c")
	w.int(RuntimeVersion)
	w.nl()
	w.str(m.Program)
	w.nl()
	w.int(len(m.Inputs))
	for _, s := range m.Inputs {
		w.str(s)
	}
	w.nl()
	w.int(len(m.Vars))
	for _, s := range m.Vars {
		w.str(s)
	}
	w.nl()
	w.int(len(m.Nodes))
	for _, n := range m.Nodes {
		w.str(n.Name)
		w.int(len(n.Places))
		for _, p := range n.Places {
			w.str(p)
		}
	}
	w.nl()
	w.num(m.timeScale())
	w.num(m.Training.OverheadNs)
	w.bool(m.Evaluation != nil)
	if m.Evaluation != nil {
		w.num(m.Evaluation.MAPE)
	} else {
		w.num(0)
	}
	w.nl()
	w.int(len(m.Arcs))
	w.nl()
	for i := range m.Arcs {
		a := &m.Arcs[i]
		w.int(a.From)
		w.int(a.To)
		w.bool(a.Resets)
		if a.Body != nil {
			w.int(*a.Body)
		} else {
			w.int(-1)
		}
		w.num(a.MeanNs)
		w.formula(sp, &a.Time, "arc "+m.arcName(i)+": time")
		w.int(len(a.Data))
		for k := range a.Data {
			w.int(sp.VarIndex(indexOf(m.Vars, a.Data[k].Var)))
			w.formula(sp, &a.Data[k].Formula, "arc "+m.arcName(i)+": "+a.Data[k].Var)
		}
		w.nl()
	}
	for i := range m.Rules {
		r := &m.Rules[i]
		w.conds(r.Conds)
		w.bool(r.Trip != nil)
		if t := r.Trip; t != nil {
			w.int(t.Arc)
			w.formula(sp, t.Count, "node "+m.Nodes[i].Name+": trip count")
			w.conds(t.Conds)
			w.shares(t.Exit)
		}
		w.shares(r.Residual)
		w.nl()
	}
	// The direct models.
	w.bool(m.Baseline != nil)
	if b := m.Baseline; b != nil {
		w.num(b.Const)
		w.int(len(b.Terms))
		for _, t := range b.Terms {
			w.num(t.Coef)
			w.int(len(t.Factors))
			for _, f := range t.Factors {
				w.int(f.Input)
				w.num(f.I)
				w.int(f.J)
			}
		}
	}
	w.nl()
	w.bool(m.Power != nil)
	if p := m.Power; p != nil {
		w.int(indexOf(m.Inputs, p.Input))
		w.num(p.A)
		w.num(p.B)
		w.num(p.K)
	}
	w.nl()
	w.bool(m.Segmented != nil)
	if s := m.Segmented; s != nil {
		w.int(indexOf(m.Inputs, s.Input))
		w.num(s.A)
		w.num(s.B)
		w.num(s.C)
		w.num(s.K)
		w.num(s.X0)
	}
	w.nl()
	w.bool(m.Selection != nil)
	if s := m.Selection; s != nil {
		iv := &s.Interval
		w.str(s.Chosen)
		w.num(iv.Level)
		w.num(iv.Q)
		w.num(iv.Widen)
		w.int(len(iv.Noise))
		for _, p := range iv.Noise {
			w.int(len(p.Inputs))
			for _, x := range p.Inputs {
				w.num(x)
			}
			w.num(p.Q)
		}
	}
	w.nl()
	// The training range of each input, in input order (0: none).
	for _, name := range m.Inputs {
		var r *InputRange
		for i := range m.Training.Ranges {
			if m.Training.Ranges[i].Name == name {
				r = &m.Training.Ranges[i]
			}
		}
		w.bool(r != nil)
		if r != nil {
			w.num(r.Min)
			w.num(r.Max)
		} else {
			w.num(0)
			w.num(0)
		}
	}
	w.nl()
	// The working set and the known cache sizes, ascending by level.
	mem := m.Memory
	w.bool(mem != nil)
	if mem != nil {
		w.int(indexOf(m.Inputs, mem.Fit.Input))
		w.num(mem.Fit.A)
		w.num(mem.Fit.B)
		w.num(mem.Fit.K)
		w.num(mem.MinBytes)
		w.num(mem.MaxBytes)
		var known []int64
		for _, l := range mem.Caches.Levels {
			if l.Bytes > 0 {
				known = append(known, l.Bytes)
			}
		}
		w.int(len(known))
		for _, b := range known {
			w.num(float64(b))
		}
	}
	w.nl()
	w.tok("end")
	w.nl()
	if w.err != nil {
		return w.err
	}
	return w.b.Flush()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// formula writes a formula: kind, its features, then its kind's numbers, then
// its fit (rows, cross-validated RMSE).
func (w *rtWriter) formula(sp *graph.Space, f *regress.Formula, where string) {
	if f == nil {
		w.fail("%s: no formula", where)
		return
	}
	w.int(int(f.Kind))
	w.int(len(f.Vars))
	for _, v := range f.Vars {
		i, ok := sp.Index(v)
		if !ok {
			w.fail("%s: unknown feature %q", where, v)
		}
		w.int(i)
	}
	switch f.Kind {
	case regress.Const, regress.Copy, regress.Shift:
		w.num(f.Value)
	case regress.Power:
		w.num(f.Value)
		w.num(f.Coef[0])
		w.num(f.Exp)
	case regress.Poly:
		w.int(len(f.Terms))
		for k, t := range f.Terms {
			w.num(f.Coef[k])
			for _, e := range t {
				if e < 0 {
					w.fail("%s: a negative exponent %d, which the C evaluator does not compute", where, e)
				}
				w.int(e)
			}
		}
	case regress.GMDH:
		net := f.Net
		for i := range f.Vars {
			w.num(net.Mu[i])
			w.num(net.Sd[i])
		}
		w.num(net.MuY)
		w.num(net.SdY)
		w.int(len(net.Layers))
		for _, layer := range net.Layers {
			w.int(len(layer))
			for _, nr := range layer {
				w.int(nr.In[0])
				w.int(nr.In[1])
				for _, c := range nr.Coef {
					w.num(c)
				}
			}
		}
		w.int(net.Out)
	default:
		w.fail("%s: formula kind %s, which the C evaluator does not know", where, f.Kind)
	}
	w.int(f.Fit.N)
	w.num(f.Fit.CVRMSE)
}

func (w *rtWriter) conds(cs []graph.Cond) {
	w.int(len(cs))
	for k := range cs {
		c := &cs[k]
		a, b := c.Expr.Features()
		w.int(c.Arc)
		w.int(a)
		w.int(b)
		w.bool(c.Expr.Ratio)
		w.int(len(c.Pieces))
		for _, p := range c.Pieces {
			w.int(int(p.Kind))
			w.bool(p.Lo != nil)
			w.num(deref(p.Lo))
			w.bool(p.Hi != nil)
			w.num(deref(p.Hi))
			w.num(p.Value)
			w.num(p.Step)
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func (w *rtWriter) shares(ss []graph.Share) {
	w.int(len(ss))
	for _, s := range ss {
		w.int(s.Arc)
		w.num(s.P)
	}
}

// cIdent is what a C identifier may hold.
var cIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// CSource returns a C file that compiles the model into a program: its runtime
// form as a constant, and fp_model_open_NAME(fp_model **out), which opens it
// with fp_model_load_text (fragprof_model.h). name must be a C identifier.
func (m *Model) CSource(name, origin string) ([]byte, error) {
	if !cIdent().MatchString(name) {
		return nil, fmt.Errorf("--name %q is not a C identifier (letters, digits and _, not starting with a digit)", name)
	}
	var text bytes.Buffer
	if err := m.WriteRuntime(&text); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* The fragprof model of %s, compiled from %s by `fragprof model compile`.\n", noComment(m.Program), noComment(origin))
	b.WriteString(" * Checkpoints (name: places):\n")
	for _, n := range m.Nodes[2:] {
		fmt.Fprintf(&b, " *   %s: %s\n", noComment(n.Name), noComment(strings.Join(n.Places, ", ")))
	}
	fmt.Fprintf(&b, " * Open it with fp_model_open_%s (fragprof_model.h); link libfragprof_model.a and -lm. */\n", name)
	b.WriteString("#include \"fragprof_model.h\"\n\n")
	fmt.Fprintf(&b, "static const char fp_model_text_%s[] =\n", name)
	for _, line := range strings.SplitAfter(text.String(), "\n") {
		if line == "" {
			continue
		}
		for len(line) > 0 {
			chunk := line
			if len(chunk) > 100 {
				chunk = chunk[:100]
			}
			line = line[len(chunk):]
			b.WriteString("    " + cString(chunk) + "\n")
		}
	}
	b.WriteString("    ;\n\n")
	fmt.Fprintf(&b, "/* fp_model_open_%s opens the compiled-in model; free it with fp_model_free. */\n", name)
	b.WriteString("#ifdef __cplusplus\nextern \"C\"\n#endif\n")
	fmt.Fprintf(&b, "int fp_model_open_%s(fp_model **out) {\n", name)
	fmt.Fprintf(&b, "\treturn fp_model_load_text(fp_model_text_%s, sizeof fp_model_text_%s - 1, %s, out);\n}\n", name, name,
		cString(fmt.Sprintf("the model %s compiled in (from %s)", name, origin)))
	return b.Bytes(), nil
}

// noComment keeps s from ending a C comment or a line inside one.
func noComment(s string) string {
	return strings.NewReplacer("*/", "* /", "\n", " ").Replace(s)
}

// cString quotes s as a C string literal (octal escapes for all but printable
// ASCII, and for '?', which could start a trigraph).
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(s) {
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString("\\n")
		case c < 0x20 || c >= 0x7f || c == '?':
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
