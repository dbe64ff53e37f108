// This file fits the direct baseline: a model of a run's total time (or of a
// variable's final value) from the inputs alone, in the performance-model normal form
// of Extra-P (Calotoiu et al., "Using automated performance modeling to find
// scalability bugs in complex codes", SC 2013):
//
//	f(x) = c₀ + Σₖ cₖ · Π_{p ∈ Sₖ} x_p^{i_p} · log₂(x_p)^{j_p}
//
// with i from {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1, 5/4, 4/3, 3/2, 5/3, 7/4, 2, 9/4, 7/3,
// 5/2, 8/3, 11/4, 3} and j from {0, 1, 2}. As in Extra-P's multi-parameter modelling,
// the best single-parameter terms are found first (the 3 best per input), then
// every way of combining them — a subset of the inputs, one term per input,
// grouped into products (all set partitions) and summed — is fitted, and the
// hypothesis with the lowest cross-validated error wins. It ignores the program's
// structure entirely: it is what every prediction is compared with.

package regress

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// A Baseline is a fitted direct model.
type Baseline struct {
	Target string     `json:"target"` // "time" or a variable's name
	Inputs []string   `json:"inputs"` // all the model's inputs; Factor.Input indexes them
	Const  float64    `json:"const"`
	Terms  []BaseTerm `json:"terms,omitempty"`
	Fit    Quality    `json:"fit"`
	CVMAPE float64    `json:"cv_mape"`  // cross-validated mean absolute percentage error (relative: 0.05 = 5%)
	Rel    bool       `json:"relative"` // fitted by relative least squares
	Tried  int        `json:"hypotheses"`
}

// A BaseTerm is one product term.
type BaseTerm struct {
	Coef    float64  `json:"coef"`
	Factors []Factor `json:"factors"`
}

// A Factor is x^I·log2(x)^J of one input.
type Factor struct {
	Input int     `json:"input"`
	I     float64 `json:"i"`
	J     int     `json:"j"`
}

func (f Factor) eval(x float64) float64 {
	v := 1.0
	if f.I != 0 {
		v = math.Pow(x, f.I)
	}
	if f.J > 0 {
		l := math.Log2(x)
		for k := 0; k < f.J; k++ {
			v *= l
		}
	}
	return v
}

var pmnfI = []float64{0, 1.0 / 4, 1.0 / 3, 1.0 / 2, 2.0 / 3, 3.0 / 4, 1, 5.0 / 4, 4.0 / 3, 3.0 / 2, 5.0 / 3, 7.0 / 4, 2, 9.0 / 4, 7.0 / 3, 5.0 / 2, 8.0 / 3, 11.0 / 4, 3}

// Eval predicts from the inputs (by the model's input order).
func (b *Baseline) Eval(in []float64) float64 {
	s := b.Const
	for _, t := range b.Terms {
		p := t.Coef
		for _, f := range t.Factors {
			p *= f.eval(in[f.Input])
		}
		s += p
	}
	return s
}

// String prints the model: "1.2e+04 + 3.1·$n³".
func (b *Baseline) String() string {
	var sb strings.Builder
	sb.WriteString(fmtNum(b.Const))
	for _, t := range b.Terms {
		if t.Coef < 0 {
			sb.WriteString(" − ")
		} else {
			sb.WriteString(" + ")
		}
		sb.WriteString(fmtNum(math.Abs(t.Coef)))
		for _, f := range t.Factors {
			name := "$" + b.Inputs[f.Input]
			sb.WriteString("·")
			if f.I != 0 {
				sb.WriteString(name)
				if f.I != 1 {
					sb.WriteString("^" + fracString(f.I))
				}
			}
			if f.J > 0 {
				if f.I != 0 {
					sb.WriteString("·")
				}
				sb.WriteString("log2(" + name + ")")
				if f.J > 1 {
					sb.WriteString(superscripts[f.J])
				}
			}
		}
	}
	return sb.String()
}

func fracString(x float64) string {
	for den := 1; den <= 4; den++ {
		num := x * float64(den)
		if math.Abs(num-math.Round(num)) < 1e-9 {
			if den == 1 {
				return fmt.Sprintf("%.0f", num)
			}
			return fmt.Sprintf("(%.0f/%d)", num, den)
		}
	}
	return fmt.Sprintf("%.3g", x)
}

// FitBaseline fits target values y (one per run) from inputs X (X[run][input]).
// With rel, errors are relative (times: a 10% miss on a short run counts as much as
// on a long one) and the hypotheses are chosen by cross-validated MAPE; otherwise
// by cross-validated RMSE.
func FitBaseline(target string, names []string, X [][]float64, y []float64, rel bool) *Baseline {
	b := &Baseline{Target: target, Inputs: names, Rel: rel}
	n := len(y)
	if n == 0 {
		return b
	}
	// Inputs that vary, with the factors their values allow.
	type param struct {
		p       int
		factors []Factor
	}
	var params []param
	for p := range names {
		lo, hi := math.Inf(1), math.Inf(-1)
		for r := 0; r < n; r++ {
			v := X[r][p]
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) {
			continue
		}
		var fs []Factor
		for _, i := range pmnfI {
			for j := 0; j <= 2; j++ {
				if i == 0 && j == 0 {
					continue
				}
				if lo <= 0 && (j > 0 || i != math.Trunc(i)) {
					continue // logarithms and roots need positive values
				}
				fs = append(fs, Factor{Input: p, I: i, J: j})
			}
		}
		params = append(params, param{p, fs})
	}
	fold := make([]int, n)
	k := min(n, 10)
	for r := range fold {
		fold[r] = r % k
	}
	type hyp struct {
		terms [][]Factor
	}
	eval := func(h hyp) (float64, []float64) {
		cols := make([][]float64, len(h.terms))
		for t, fs := range h.terms {
			cols[t] = make([]float64, n)
			for r := 0; r < n; r++ {
				v := 1.0
				for _, f := range fs {
					v *= f.eval(X[r][f.Input])
				}
				cols[t][r] = v
			}
		}
		return cvLinear(cols, y, fold, k, rel)
	}
	b.Tried = 1
	bestErr, bestCoef := eval(hyp{})
	var bestTerms [][]Factor
	// The best single-parameter terms, 3 per input.
	top := map[int][]Factor{}
	for _, pa := range params {
		type scored struct {
			f   Factor
			err float64
		}
		var ss []scored
		for _, f := range pa.factors {
			e, _ := eval(hyp{terms: [][]Factor{{f}}})
			b.Tried++
			ss = append(ss, scored{f, e * Penalty([][]Factor{{f}})})
		}
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].err < ss[j].err })
		for i := 0; i < len(ss) && i < 3; i++ {
			top[pa.p] = append(top[pa.p], ss[i].f)
		}
	}
	// Combinations: subsets of up to 3 inputs, a term choice per input, every set
	// partition into product terms.
	var ps []int
	for _, pa := range params {
		ps = append(ps, pa.p)
	}
	type tried struct {
		terms [][]Factor
		err   float64
		coef  []float64
	}
	var all []tried
	try := func(terms [][]Factor) {
		e, coef := eval(hyp{terms: terms})
		b.Tried++
		all = append(all, tried{terms, e, coef})
		if e < bestErr*(1-1e-9) || (e <= bestErr && len(terms) < len(bestTerms)) {
			bestErr, bestCoef, bestTerms = e, coef, terms
		}
	}
	for _, subset := range subsets(ps, 3) {
		choices := [][]Factor{{}}
		for _, p := range subset {
			var next [][]Factor
			for _, c := range choices {
				for _, f := range top[p] {
					next = append(next, append(append([]Factor(nil), c...), f))
				}
			}
			choices = next
		}
		for _, c := range choices {
			for _, part := range partitions(len(c)) {
				terms := make([][]Factor, len(part))
				for t, block := range part {
					for _, i := range block {
						terms[t] = append(terms[t], c[i])
					}
				}
				try(terms)
			}
		}
	}
	// Two terms of one input (Extra-P's n = 2 for a single parameter).
	for _, p := range ps {
		fs := top[p]
		for a := 0; a < len(fs); a++ {
			for c := a + 1; c < len(fs); c++ {
				try([][]Factor{{fs[a]}, {fs[c]}})
			}
		}
	}
	// Occam's razor: the hypothesis of the lowest penalised error (Penalty). Over a
	// narrow range of noisy sizes a fractional exponent or a log² fits a hair
	// better than the integer power of a loop nest — and lies a factor 1.5 away
	// from it at 16× the range.
	bestScore := bestErr * Penalty(bestTerms)
	for _, h := range all {
		if sc := h.err * Penalty(h.terms); sc < bestScore {
			bestScore, bestErr, bestCoef, bestTerms = sc, h.err, h.coef, h.terms
		}
	}
	// The final fit on all runs.
	cols := make([][]float64, len(bestTerms))
	for t, fs := range bestTerms {
		cols[t] = make([]float64, n)
		for r := 0; r < n; r++ {
			v := 1.0
			for _, f := range fs {
				v *= f.eval(X[r][f.Input])
			}
			cols[t][r] = v
		}
	}
	coef := bestCoef
	if len(coef) != len(bestTerms)+1 {
		coef = fitLinear(cols, y, nil, rel)
	}
	b.Const = coef[0]
	for t, fs := range bestTerms {
		b.Terms = append(b.Terms, BaseTerm{Coef: coef[t+1], Factors: fs})
	}
	p := &Problem{Y: y}
	b.Fit = quality(p, func(r int) float64 { return b.Eval(X[r]) })
	if rel {
		b.CVMAPE = bestErr
	} else {
		b.Fit.CVRMSE = bestErr
	}
	return b
}

// Penalty is the factor by which a hypothesis's cross-validated error is raised
// before hypotheses are compared: 1 + 10% per fractional exponent + 1% per
// logarithm factor + 1% per term beyond the first (over a narrow range log²n
// mimics n^0.45). The loops of a program make
// its costs integer powers of its sizes, times logarithms where it halves;
// fractional exponents are what noise over a narrow range fits.
func Penalty(terms [][]Factor) float64 {
	p := 1.0
	if len(terms) > 1 {
		p += 0.01 * float64(len(terms)-1)
	}
	for _, t := range terms {
		for _, f := range t {
			p += 0.01 * float64(f.J)
			if f.I != math.Trunc(f.I) {
				p += FractionalPenalty
			}
		}
	}
	return p
}

// FractionalPenalty is the relative error a fractional exponent must save to be
// chosen over an integer one (baseline, power law, arc times).
const FractionalPenalty = 0.10

// fitLinear fits y ≈ c₀ + Σ cₜ colsₜ on the rows with use[r] (all when nil), by
// least squares, relative (rows weighted by 1/|y|) when rel.
func fitLinear(cols [][]float64, y []float64, use []bool, rel bool) []float64 {
	T := len(cols) + 1
	G := make([]float64, T*T)
	rhs := make([]float64, T)
	row := make([]float64, T)
	// Scale columns for conditioning.
	scale := make([]float64, T)
	scale[0] = 1
	for t, c := range cols {
		scale[t+1] = maxAbs(c)
		if scale[t+1] == 0 {
			scale[t+1] = 1
		}
	}
	for r := range y {
		if use != nil && !use[r] {
			continue
		}
		w := 1.0
		if rel && y[r] != 0 {
			w = 1 / math.Abs(y[r])
		}
		row[0] = w
		for t, c := range cols {
			row[t+1] = c[r] / scale[t+1] * w
		}
		for i := 0; i < T; i++ {
			for j := 0; j < T; j++ {
				G[i*T+j] += row[i] * row[j]
			}
			rhs[i] += row[i] * y[r] * w
		}
	}
	c := solveSym(G, rhs, T)
	for t := range c {
		c[t] /= scale[t]
	}
	return c
}

// cvLinear returns the k-fold cross-validated error of fitLinear — MAPE when rel,
// RMSE otherwise — and the coefficients fitted on all rows.
func cvLinear(cols [][]float64, y []float64, fold []int, k int, rel bool) (float64, []float64) {
	var errSum float64
	use := make([]bool, len(y))
	for f := 0; f < k; f++ {
		for r := range use {
			use[r] = fold[r] != f
		}
		c := fitLinear(cols, y, use, rel)
		for r := range y {
			if use[r] {
				continue
			}
			p := c[0]
			for t, col := range cols {
				p += c[t+1] * col[r]
			}
			if rel {
				errSum += math.Abs(p-y[r]) / math.Max(math.Abs(y[r]), 1e-300)
			} else {
				errSum += (p - y[r]) * (p - y[r])
			}
		}
	}
	e := errSum / float64(len(y))
	if !rel {
		e = math.Sqrt(e)
	}
	if math.IsNaN(e) {
		e = math.Inf(1)
	}
	return e, fitLinear(cols, y, nil, rel)
}

// subsets returns the non-empty subsets of xs with at most m elements.
func subsets(xs []int, m int) [][]int {
	var out [][]int
	var rec func(i int, cur []int)
	rec = func(i int, cur []int) {
		if i == len(xs) {
			if len(cur) > 0 {
				out = append(out, append([]int(nil), cur...))
			}
			return
		}
		rec(i+1, cur)
		if len(cur) < m {
			rec(i+1, append(cur, xs[i]))
		}
	}
	rec(0, nil)
	return out
}

// partitions returns the set partitions of {0, …, n−1}.
func partitions(n int) [][][]int {
	if n == 0 {
		return [][][]int{{}}
	}
	var out [][][]int
	for _, p := range partitions(n - 1) {
		// n−1 joins an existing block, or starts its own.
		for b := range p {
			q := make([][]int, len(p))
			for i := range p {
				q[i] = append([]int(nil), p[i]...)
			}
			q[b] = append(q[b], n-1)
			out = append(out, q)
		}
		q := make([][]int, len(p), len(p)+1)
		for i := range p {
			q[i] = append([]int(nil), p[i]...)
		}
		out = append(out, append(q, []int{n - 1}))
	}
	return out
}
