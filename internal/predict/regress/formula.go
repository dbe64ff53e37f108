// This file defines formulas — the fitted functions of the state that give a
// transition's time, a recorded variable's new value, or a loop's trip count — and
// how they are evaluated and printed.

// Package regress holds the regressions of the prediction metalayer: the formulas
// that give a transition's time, a recorded variable's new value or a loop's trip
// count as a function of the state, and the direct models of a run's total time (or
// of a variable's final value) as a function of the inputs alone.
//
// Formulas (formula.go) are fitted by least squares — polynomials over variables
// chosen by correlation analysis and forward selection with cross-validation
// (docs/methods.md) — or by GMDH, the group method of data handling (Ivakhnenko
// 1971), and a time may be a power law a + b·x^k instead (fit.go). The direct models
// are Extra-P's performance-model normal form (Calotoiu et al., "Using automated
// performance modeling to find scalability bugs in complex codes", SC 2013;
// baseline.go), the power law of one input with its exponent fitted (powerlaw.go),
// and the same with one change of slope at a fitted breakpoint, continuous segmented
// regression (Muggeo, Statistics in Medicine 22, 2003; segmented.go).
//
// A formula names the features it reads ("$n", "err", "#inner"); Compile binds the
// names to positions in a state through Features, which package graph's Space
// provides. Rows, folds and weights come in a Problem.
package regress

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/fragprof/fragprof/internal/jsonnum"
)

// FormulaKind says what form a formula has.
type FormulaKind uint8

// The kinds of formulas.
const (
	Const FormulaKind = iota // Value
	Copy                     // Vars[0]: a variable keeps its value, or takes another's
	Shift                    // Vars[0] + Value: i := i + 1
	Poly                     // Σ Coef[k]·Π Vars[v]^Terms[k][v]: least squares
	GMDH                     // Net over Vars: group method of data handling
	Power                    // Value + Coef[0]·Vars[0]^Exp: a power law, exponent fitted
)

var formulaKindNames = [...]string{"const", "copy", "shift", "poly", "gmdh", "power"}

func (k FormulaKind) String() string {
	if int(k) < len(formulaKindNames) {
		return formulaKindNames[k]
	}
	return fmt.Sprintf("FormulaKind(%d)", k)
}

// MarshalText writes the kind's name.
func (k FormulaKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *FormulaKind) UnmarshalText(b []byte) error {
	for i, n := range formulaKindNames {
		if n == string(b) {
			*k = FormulaKind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown formula kind %q", b)
}

// Quality describes how well a formula fits.
type Quality struct {
	N    int     `json:"n"`    // rows fitted
	R2   float64 `json:"r2"`   // coefficient of determination on those rows (1 when y is constant and fitted)
	RMSE float64 `json:"rmse"` // root mean square error on them
	// CVRMSE is the cross-validated RMSE: k-fold by run for least squares, on the
	// validation split (the external criterion) for GMDH.
	CVRMSE float64 `json:"cv_rmse"`
	Mean   float64 `json:"mean_abs"` // mean |y|, the scale of the errors
	// Outliers is the number of rows a robust fit set aside (FitTime).
	Outliers int `json:"outliers,omitempty"`
}

// CVRel returns the cross-validated error relative to the mean magnitude.
func (q Quality) CVRel() float64 {
	if q.Mean == 0 {
		return q.CVRMSE
	}
	return q.CVRMSE / q.Mean
}

// A Formula is a fitted function of features named as Features resolve them (the
// model's features as graph.Space prints them: "$n", "err", "#inner").
type Formula struct {
	Kind  FormulaKind `json:"kind"`
	Vars  []string    `json:"vars,omitempty"`
	Value float64     `json:"value,omitempty"`
	Terms [][]int     `json:"terms,omitempty"`
	Coef  []float64   `json:"coef,omitempty"`
	Net   *Net        `json:"net,omitempty"`
	Exp   float64     `json:"exp,omitempty"` // Power: the exponent
	Fit   Quality     `json:"fit"`

	idx []int       // the features of Vars in the state, set by Compile
	z   []float64   // GMDH scratch: standardised inputs
	buf [][]float64 // GMDH scratch: layer outputs
}

// A Net is a GMDH network: layers of two-input quadratic neurons over standardised
// inputs. Neuron inputs index the previous layer's outputs (layer 0: nothing), then
// the network's inputs: In < len(previous layer) is a neuron, else input
// In − len(previous layer).
type Net struct {
	Mu, Sd   []float64 // standardisation of the inputs
	MuY, SdY float64   // of the output
	Layers   [][]Neuron
	Out      int // the output neuron, in the last layer
}

// A Neuron computes c0 + c1·a + c2·b + c3·a·b + c4·a² + c5·b² (Ivakhnenko's
// polynomial) of its two inputs.
type Neuron struct {
	In   [2]int     `json:"in"`
	Coef [6]float64 `json:"coef"`
}

func (n *Neuron) eval(a, b float64) float64 {
	c := &n.Coef
	return c[0] + c[1]*a + c[2]*b + c[3]*a*b + c[4]*a*a + c[5]*b*b
}

// eval runs the network on standardised inputs z.
func (net *Net) evalZ(z []float64, buf [][]float64) float64 {
	var prev []float64
	for l, layer := range net.Layers {
		out := buf[l][:len(layer)]
		for i := range layer {
			nr := &layer[i]
			a := netInput(nr.In[0], prev, z)
			b := netInput(nr.In[1], prev, z)
			out[i] = nr.eval(a, b)
		}
		prev = out
	}
	return prev[net.Out]
}

func netInput(i int, prev, z []float64) float64 {
	if i < len(prev) {
		return prev[i]
	}
	return z[i-len(prev)]
}

// Features resolves the names a formula uses to positions in the state it is
// evaluated on (graph.Space, for a model's formulas).
type Features interface {
	Index(name string) (int, bool)
}

// columns are a problem's columns by name, as Features.
type columns []string

func (c columns) Index(name string) (int, bool) {
	for i, n := range c {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// Compile resolves the formula's variables in sp.
func (f *Formula) Compile(sp Features) error {
	f.idx = f.idx[:0]
	for _, v := range f.Vars {
		i, ok := sp.Index(v)
		if !ok {
			return fmt.Errorf("formula uses %q, which the model does not define", v)
		}
		f.idx = append(f.idx, i)
	}
	switch f.Kind {
	case Power:
		if len(f.Vars) != 1 || len(f.Coef) != 1 {
			return fmt.Errorf("power formula with %d variables and %d coefficients", len(f.Vars), len(f.Coef))
		}
	case Copy, Shift:
		if len(f.Vars) != 1 {
			return fmt.Errorf("%s formula with %d variables", f.Kind, len(f.Vars))
		}
	case Poly:
		if len(f.Coef) != len(f.Terms) {
			return fmt.Errorf("poly formula with %d coefficients for %d terms", len(f.Coef), len(f.Terms))
		}
		for _, t := range f.Terms {
			if len(t) != len(f.Vars) {
				return fmt.Errorf("poly term of %d exponents for %d variables", len(t), len(f.Vars))
			}
		}
	case GMDH:
		if f.Net == nil || len(f.Net.Layers) == 0 || len(f.Net.Mu) != len(f.Vars) || len(f.Net.Sd) != len(f.Vars) {
			return fmt.Errorf("gmdh formula without a well-formed network")
		}
		n := len(f.Vars)
		prev := 0
		for _, layer := range f.Net.Layers {
			for _, nr := range layer {
				for _, in := range nr.In {
					if in < 0 || in >= prev+n {
						return fmt.Errorf("gmdh neuron input %d out of range", in)
					}
				}
			}
			prev = len(layer)
		}
		if f.Net.Out < 0 || f.Net.Out >= prev {
			return fmt.Errorf("gmdh output neuron %d out of range", f.Net.Out)
		}
		f.z = make([]float64, n)
		f.buf = make([][]float64, len(f.Net.Layers))
		for l := range f.buf {
			f.buf[l] = make([]float64, len(f.Net.Layers[l]))
		}
	}
	return nil
}

// Eval evaluates the formula on a state (after Compile). A compiled GMDH formula
// keeps scratch space: it is not safe for concurrent use.
func (f *Formula) Eval(state []float64) float64 {
	switch f.Kind {
	case Const:
		return f.Value
	case Copy:
		return state[f.idx[0]]
	case Shift:
		return state[f.idx[0]] + f.Value
	case Power:
		x := state[f.idx[0]]
		if x <= 0 {
			return f.Value
		}
		return f.Value + f.Coef[0]*math.Pow(x, f.Exp)
	case Poly:
		s := 0.0
		for k, t := range f.Terms {
			p := f.Coef[k]
			for v, e := range t {
				x := state[f.idx[v]]
				for ; e > 0; e-- {
					p *= x
				}
			}
			s += p
		}
		return s
	case GMDH:
		net := f.Net
		for i, ix := range f.idx {
			f.z[i] = (state[ix] - net.Mu[i]) / net.Sd[i]
		}
		return net.MuY + net.SdY*net.evalZ(f.z, f.buf)
	}
	panic("predict: unknown formula kind")
}

// Uses reports whether the formula reads feature i (after Compile).
func (f *Formula) Uses(i int) bool {
	if f == nil {
		return false
	}
	for _, x := range f.idx {
		if x == i {
			return true
		}
	}
	return false
}

// String prints the formula readably: "1.2e+03 + 4.5·$n²", "y + 1".
func (f *Formula) String() string {
	switch f.Kind {
	case Const:
		return fmtNum(f.Value)
	case Copy:
		return f.Vars[0]
	case Shift:
		if f.Value < 0 {
			return f.Vars[0] + " − " + fmtNum(-f.Value)
		}
		return f.Vars[0] + " + " + fmtNum(f.Value)
	case Power:
		sign := " + "
		if f.Coef[0] < 0 {
			sign = " − "
		}
		return fmtNum(f.Value) + sign + fmtNum(math.Abs(f.Coef[0])) + "·" + f.Vars[0] + "^" + fmt.Sprintf("%.3g", f.Exp)
	case Poly:
		var sb strings.Builder
		for k, t := range f.Terms {
			c := f.Coef[k]
			mono := monomial(f.Vars, t)
			if c == 0 {
				continue
			}
			switch {
			case sb.Len() == 0 && c < 0:
				sb.WriteString("−")
			case sb.Len() > 0 && c < 0:
				sb.WriteString(" − ")
			case sb.Len() > 0:
				sb.WriteString(" + ")
			}
			a := math.Abs(c)
			switch {
			case mono == "":
				sb.WriteString(fmtNum(a))
			case math.Abs(a-1) < 1e-12:
				sb.WriteString(mono)
			default:
				sb.WriteString(fmtNum(a) + "·" + mono)
			}
		}
		if sb.Len() == 0 {
			return "0"
		}
		return sb.String()
	case GMDH:
		n := 0
		for _, l := range f.Net.Layers {
			n += len(l)
		}
		return fmt.Sprintf("GMDH(%s; %d layers, %d neurons)", strings.Join(f.Vars, ", "), len(f.Net.Layers), n)
	}
	return f.Kind.String()
}

var superscripts = []string{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}

func monomial(vars []string, exps []int) string {
	var parts []string
	for v, e := range exps {
		switch {
		case e == 0:
		case e == 1:
			parts = append(parts, vars[v])
		case e < 10:
			parts = append(parts, vars[v]+superscripts[e])
		default:
			parts = append(parts, fmt.Sprintf("%s^%d", vars[v], e))
		}
	}
	return strings.Join(parts, "·")
}

// fmtNum prints a number with 4 significant digits, integers exactly.
func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4g", x)
}

// MarshalJSON writes a Quality with NaN and infinities as 0 (JSON has neither).
func (q Quality) MarshalJSON() ([]byte, error) {
	type plain Quality
	p := plain(q)
	p.R2, p.RMSE, p.CVRMSE, p.Mean = jsonnum.OrZero(p.R2), jsonnum.OrZero(p.RMSE), jsonnum.OrZero(p.CVRMSE), jsonnum.OrZero(p.Mean)
	return json.Marshal(p)
}
