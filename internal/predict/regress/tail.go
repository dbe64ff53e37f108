// This file fits the exit of a loop as one more pass of its body and a tail.

package regress

import (
	"math"
	"slices"

	"github.com/fragprof/fragprof/internal/stats"
)

// FitTail fits the time of a loop's exit arc as body, the time formula of the
// loop's back arc evaluated at the same state, plus a constant tail. A loop whose
// checkpoint heads its body runs the body once more before it leaves, so its exit
// arc is its body's work again and a little: jacobi2d's last step, seidel2d's last
// sweep. Fitted alone from one transition a run, such an arc takes the exponent
// its few noisy rows allow — jacobi2d's last step came out as 3.5·10⁴ + 0.0016·n³
// over n ∈ [251, 500], where its other steps are 0.92·n², 14 times them at 16
// times the range (bench/predict.sh) —, while the back arc's formula
// rests on every iteration of every run.
//
// The tail is the median of y − max(0, body) over p's rows. It is returned with
// true when it cross-validates by input point (cvMedian: 5 folds of whole points,
// each point scored by the median of its rows' residuals, so that a few slow
// last steps at the top of the range — two runs in five of jacobi2d's n = 500
// took 20% longer over the last step than over the others — do not decide) within
// 10% of direct's error by the same folds, direct's exponent chosen again within
// each fold for a power law: within the noise, the form that extrapolates with
// the body is preferred, as powerTime prefers a power law. An exit arc that does
// not run the body (a checkpoint at the bottom of its loop) leaves a rest that
// falls as the body grows, which no constant fits. The tail's Fit is that of
// body + tail against p's rows, with that cross-validated error. false when p
// has fewer than 5 input points, when body is a constant (which adds nothing a
// constant fit of the arc lacks), or when body or direct does not fit p's
// names.
func FitTail(p *Problem, body, direct *Formula) (Formula, bool) {
	pf := newPointFolds(p)
	if pf == nil || body.Kind == Const {
		return Formula{}, false
	}
	sp := columns(p.Names)
	b := *body
	b.idx = nil // compiled afresh: not into body's array
	if b.Compile(sp) != nil {
		return Formula{}, false
	}
	cols, ok := basis(p, direct)
	if !ok {
		return Formula{}, false
	}
	state := make([]float64, len(p.Cols))
	rest := &Problem{Y: make([]float64, p.rows())} // its rows are p's
	bodyAt := make([]float64, p.rows())
	for r := range p.Y {
		for c := range p.Cols {
			state[c] = p.Cols[c][r]
		}
		bodyAt[r] = math.Max(0, b.Eval(state))
		rest.Y[r] = p.Y[r] - bodyAt[r]
	}
	// Both scored by each point's median residual, the direct fit's exponent
	// chosen again within each fold (chosen on all the rows, it has seen every
	// fold).
	directErr := pf.cvMedian(p, func(use []bool) func(r int) float64 {
		co := fitLinear(cols, p.Y, use, false)
		return func(r int) float64 {
			y := co[0]
			for t, col := range cols {
				y += co[t+1] * col[r]
			}
			return y
		}
	})
	if direct.Kind == Power {
		if c := slices.Index(p.Names, direct.Vars[0]); c >= 0 {
			directErr = pf.cvMedian(p, func(use []bool) func(r int) float64 { return pf.fitPowerFold(p, c, use) })
		}
	}
	medianOf := func(use []bool) float64 {
		var ys []float64
		for r, v := range rest.Y {
			if use == nil || use[r] {
				ys = append(ys, v)
			}
		}
		return stats.Median(ys)
	}
	tailErr := pf.cvMedian(rest, func(use []bool) func(r int) float64 {
		c := medianOf(use)
		return func(int) float64 { return c }
	})
	if !(tailErr <= 1.1*directErr) {
		return Formula{}, false
	}
	tail := Formula{Kind: Const, Value: medianOf(nil)}
	tail.Fit = quality(p, func(r int) float64 { return bodyAt[r] + tail.Value })
	tail.Fit.CVRMSE = tailErr
	return tail, true
}

// cvMedian is the cross-validated error by point of a fitting procedure: over
// 5 folds of whole points, fit(use) fitted on the rows where use is true gives
// a prediction for every row; each held-out point is scored by the median of
// its rows' residuals — its typical run, the target of the evaluation, which
// two slow runs of five do not move — and the error is the root mean square
// of those scores.
func (pf *pointFolds) cvMedian(p *Problem, fit func(use []bool) func(r int) float64) float64 {
	use := make([]bool, p.rows())
	var sq float64
	var n int
	for f := 0; f < 5; f++ {
		for r := range use {
			use[r] = pf.fold[r] != f
		}
		pred := fit(use)
		if pred == nil {
			return math.Inf(1)
		}
		s, m := pf.medianSq(p, pred, use, false)
		sq += s
		n += m
	}
	if n == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(sq / float64(n))
}

// medianSq is the sum over points of the square of the median of pred's
// residuals on their rows where use is want, and how many points have such rows.
func (pf *pointFolds) medianSq(p *Problem, pred func(r int) float64, use []bool, want bool) (float64, int) {
	res := make([][]float64, pf.n)
	for r := range p.Y {
		if use[r] == want {
			res[pf.point[r]] = append(res[pf.point[r]], p.Y[r]-pred(r))
		}
	}
	var sq float64
	var n int
	for _, rs := range res {
		if len(rs) > 0 {
			m := stats.Median(rs)
			sq += m * m
			n++
		}
	}
	return sq, n
}

// fitPowerFold chooses a power law as powerTime does, on the rows where use is
// true and by median residuals: the exponent k ∈ [0.25, 4] by 0.05 (a
// fractional one at FractionalPenalty) whose least-squares fit a + b·x^k of
// column c is a timeLaw and leaves the smallest median residuals by point on
// those rows. nil when no k qualifies.
func (pf *pointFolds) fitPowerFold(p *Problem, c int, use []bool) func(r int) float64 {
	var pred func(r int) float64
	best := math.Inf(1)
	for e := 5; e <= 80; e++ {
		k := float64(e) / 20
		col := make([]float64, p.rows())
		for r, v := range p.Cols[c] {
			col[r] = math.Pow(v, k)
		}
		co := fitLinear([][]float64{col}, p.Y, use, false)
		if !timeLaw(k, co) {
			continue
		}
		fit := func(r int) float64 { return co[0] + co[1]*col[r] }
		s, m := pf.medianSq(p, fit, use, true)
		score := math.Sqrt(s / float64(max(m, 1)))
		if e%20 != 0 {
			score *= 1 + FractionalPenalty
		}
		if score < best {
			pred, best = fit, score
		}
	}
	return pred
}
