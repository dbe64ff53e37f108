// This file fits transition times: the shape of a time within a run, power laws,
// and the robust fit that leaves out preemption spikes (FitTime).

package regress

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/stats"
)

// spikeNs is the smallest residual FitTime sets aside: the scale of a lost time
// slice, far above any skew of a fragment's own times (cache misses, timer
// granularity), which trimming would bias.
const spikeNs = 20000

// FitTime fits a transition's time robustly: after each fit, the rows whose residual
// lies beyond 4 robust standard deviations (1.4826·MAD of the residuals) and beyond
// spikeNs are set aside and the fit is redone, up to 4 rounds and a quarter of the
// rows. Such rows are the spikes of a run that lost its processor (preemption,
// interrupts, another program's burst on a shared machine): they belong to the
// machine, not to the program, and least squares would follow them. Spikes that
// recur at one place of the program (systematic) are kept.
//
// A time so chosen, by its error per input point, is the right sum over a run but
// may have the wrong shape within it: over a run, a row time ∝ i·n summed over its
// rows is a function of n alone, and a formula flat in i fits every point's total
// as well. withinRunTime then offers one that follows the transitions.
func FitTime(p *Problem, opt FitOptions) Formula {
	f := fitTimeRobust(p, opt)
	if pw, ok := powerTime(p, &f); ok {
		f = pw
	}
	if w, ok := withinRunTime(p, opt, &f); ok {
		return w
	}
	return f
}

// withinRunTime refits a time over the inputs and the variables the program
// records within a run (not the checkpoints' counters, on which the interpreter's
// fast-forward depends), scored by its error per transition rather than per input
// point, and returns it in place of f when it is a far better account of the
// transitions and not a much worse one of the runs: its median absolute residual
// per transition on the training rows is under half f's, and its error by input
// point — each point's mean residual (the error of a run's total), cross-validated
// over 5 folds of whole points, root mean square over the points — at most 2×
// f's (a time per run can carry what no transition shows, such as the warm-up
// of its first rows, which a formula of the inputs alone follows better). Probes
// of a run (model predict --probe) and marks within it read the model's time
// part-way through a run, which needs the shape.
func withinRunTime(p *Problem, opt FitOptions, f *Formula) (Formula, bool) {
	if p.rows() < 20 {
		return Formula{}, false
	}
	q := &Problem{Y: p.Y, Run: p.Run, W: p.W, Nonneg: p.Nonneg}
	within := false
	for c, name := range p.Names {
		if strings.HasPrefix(name, "#") {
			continue
		}
		col := p.Cols[c]
		if !strings.HasPrefix(name, "$") {
			if slices.ContainsFunc(col, math.IsNaN) {
				return Formula{}, false
			}
			within = within || variesWithinPoint(col, p.Run)
		}
		q.Names = append(q.Names, name)
		q.Cols = append(q.Cols, col)
	}
	if !within {
		return Formula{}, false
	}
	g := fitTimeRobust(q, opt)
	if g.Kind != Poly || !slices.ContainsFunc(g.Vars, func(v string) bool { return !strings.HasPrefix(v, "$") }) {
		return Formula{}, false
	}
	pf := newPointFolds(p)
	b0, ok0 := basis(p, f)
	b1, ok1 := basis(p, &g)
	if pf == nil || !ok0 || !ok1 {
		return Formula{}, false
	}
	row0, row1 := medianAbsResidual(p, f), medianAbsResidual(p, &g)
	point0, point1 := pf.cv(p, b0), pf.cv(p, b1)
	if !(row1 < 0.5*row0) || !(point1 <= 2*point0) {
		return Formula{}, false
	}
	return g, true
}

// basis returns the columns over p's rows in which f is linear (its constant
// aside): a polynomial's monomials, a power law's x^k; false for other kinds.
func basis(p *Problem, f *Formula) ([][]float64, bool) {
	col := func(name string) []float64 {
		if i := slices.Index(p.Names, name); i >= 0 {
			return p.Cols[i]
		}
		return nil
	}
	switch f.Kind {
	case Const:
		return nil, true
	case Power:
		x := col(f.Vars[0])
		if x == nil {
			return nil, false
		}
		out := make([]float64, len(x))
		for r, v := range x {
			if v > 0 { // as Eval: the constant alone at x ≤ 0
				out[r] = math.Pow(v, f.Exp)
			}
		}
		return [][]float64{out}, true
	case Poly:
		vars := make([][]float64, len(f.Vars))
		for i, v := range f.Vars {
			if vars[i] = col(v); vars[i] == nil {
				return nil, false
			}
		}
		var out [][]float64
		for _, t := range f.Terms {
			if degree(t) == 0 {
				continue
			}
			c := make([]float64, p.rows())
			for r := range c {
				c[r] = 1
				for i, e := range t {
					c[r] *= math.Pow(vars[i][r], float64(e))
				}
			}
			out = append(out, c)
		}
		return out, true
	}
	return nil, false
}

// variesWithinPoint reports whether col takes more than one value among the rows
// of one input point.
func variesWithinPoint(col []float64, run []int32) bool {
	first := map[int32]float64{}
	for r, v := range col {
		if w, ok := first[run[r]]; !ok {
			first[run[r]] = v
		} else if w != v {
			return true
		}
	}
	return false
}

// medianAbsResidual is f's median absolute residual over p's rows (+Inf when f
// does not compile over them).
func medianAbsResidual(p *Problem, f *Formula) float64 {
	if f.Compile(columns(p.Names)) != nil {
		return math.Inf(1)
	}
	state := make([]float64, len(p.Cols))
	abs := make([]float64, p.rows())
	for r := range p.Y {
		for c := range p.Cols {
			state[c] = p.Cols[c][r]
		}
		abs[r] = math.Abs(p.Y[r] - f.Eval(state))
	}
	return stats.Median(abs)
}

// powerTime tries, for a time fitted as a polynomial or a constant, a power law
// a + b·$x^k of one input (k ∈ [0.25, 4] by 0.05, fitted; a fractional k must
// lower the error by FractionalPenalty): polynomials chosen by
// forward selection over a narrow range of sizes keep the degree the noise
// allows — a line through a row time ∝ n² over n ∈ [48, 128] is within the noise
// there and 3× off at n = 512 — while a power law's fitted exponent follows the
// shape. The power law replaces f when its cross-validated error, by input point
// (5 folds of whole points, each point scored by its rows' mean residual), is
// at most 10% above the polynomial's: within the noise, the form that
// extrapolates is preferred. Not a power law that explains next to nothing of the
// rows (R² under minExplained, as in fitPoly), nor one with k > 1 whose curve
// varies over the training rows by less than half its mean (weakCurve): a
// transition of constant cost with a slight upward drift in its per-point means
// otherwise came out as 1360 + 1.2·10⁻¹⁹·n⁴, flat over the training range and
// doubled at 4 times its top. Nor a concave one (k < 1) with a negative
// constant, zero at some size below the range: that is the curve least squares
// draws through a step up inside the range, or through noise that bends the
// top points down (the start of mergesort's main, a fill loop of 2.3 ns an
// element and 30 µs besides: −1.7·10⁵ + 7310·n^0.35, 56% of its time at 4 times
// the range; TestPowerTimeConcave).
func powerTime(p *Problem, f *Formula) (Formula, bool) {
	if f.Kind != Poly && f.Kind != Const || p.rows() < 6 {
		return Formula{}, false
	}
	pointFolds := newPointFolds(p)
	if pointFolds == nil {
		return Formula{}, false
	}
	cv := func(cols [][]float64) float64 { return pointFolds.cv(p, cols) }
	// The polynomial's columns.
	var polyCols [][]float64
	if f.Kind == Poly {
		idx := make([]int, len(f.Vars))
		for v, name := range f.Vars {
			idx[v] = slices.Index(p.Names, name)
			if idx[v] < 0 {
				return Formula{}, false
			}
		}
		for _, t := range f.Terms {
			if degree(t) == 0 {
				continue
			}
			col := make([]float64, p.rows())
			for r := range col {
				v := 1.0
				for i, e := range t {
					for ; e > 0; e-- {
						v *= p.Cols[idx[i]][r]
					}
				}
				col[r] = v
			}
			polyCols = append(polyCols, col)
		}
	}
	polyErr := cv(polyCols)
	best, bestErr, bestCol := Formula{}, math.Inf(1), -1
	bestScore := math.Inf(1)
	col := make([]float64, p.rows())
	for c, name := range p.Names {
		if !strings.HasPrefix(name, "$") {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range p.Cols[c] {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if !(lo > 0) || !(hi > 1.2*lo) {
			continue
		}
		for e := 5; e <= 80; e++ {
			k := float64(e) / 20
			for r := range col {
				col[r] = math.Pow(p.Cols[c][r], k)
			}
			err := cv([][]float64{col})
			score := err
			if e%20 != 0 {
				score *= 1 + FractionalPenalty // integer exponents preferred, as in Penalty
			}
			if score >= bestScore {
				continue
			}
			co := fitLinear([][]float64{col}, p.Y, nil, false)
			if !timeLaw(k, co) {
				continue
			}
			bestScore, bestErr, bestCol = score, err, c
			best = Formula{Kind: Power, Vars: []string{name}, Value: co[0], Coef: []float64{co[1]}, Exp: k}
		}
	}
	// Over a constant, a power law must earn its place: 10% lower error.
	if best.Vars == nil || bestErr > 1.1*polyErr || f.Kind == Const && bestErr > 0.9*polyErr {
		return Formula{}, false
	}
	sp := columns(p.Names)
	if best.Compile(sp) != nil {
		return Formula{}, false
	}
	state := make([]float64, len(p.Cols))
	best.Fit = quality(p, func(r int) float64 {
		for c := range p.Cols {
			state[c] = p.Cols[c][r]
		}
		return best.Eval(state)
	})
	if best.Fit.R2 < minExplained || best.Exp > 1 && weakCurve(&best, p, []int{bestCol}) {
		return Formula{}, false
	}
	best.Fit.CVRMSE = math.Max(bestErr, f.Fit.CVRMSE*bestErr/math.Max(polyErr, 1e-300))
	return best, true
}

// timeLaw reports whether a + b·x^k, co = [a, b], may stand for a time: not
// one that falls with size (b ≤ 0), which does not extrapolate, nor a concave
// one (k < 1) with a < 0, zero at a size below the range — the curve of a step
// up inside it, which falls short beyond it.
func timeLaw(k float64, co []float64) bool {
	return co[1] > 0 && !(k < 1 && co[0] < 0)
}

// pointFolds splits a problem's rows into 5 folds of whole input points for
// cross-validation by point.
type pointFolds struct {
	point []int // the rows' points, numbered in order of appearance
	fold  []int // the rows' folds
	n     int   // points
}

// newPointFolds returns p's folds, or nil when p has fewer than 5 points.
func newPointFolds(p *Problem) *pointFolds {
	idx := map[int32]int{}
	for _, r := range p.Run {
		if _, ok := idx[r]; !ok {
			idx[r] = len(idx)
		}
	}
	if len(idx) < 5 {
		return nil
	}
	f := &pointFolds{point: make([]int, p.rows()), fold: make([]int, p.rows()), n: len(idx)}
	for r := range f.fold {
		f.point[r] = idx[p.Run[r]]
		f.fold[r] = f.point[r] % 5
	}
	return f
}

// cv returns the cross-validated error of a linear fit of p.Y on cols (and a
// constant) by point: the root mean square over points of each point's mean
// residual, from the fit on the other folds.
func (pf *pointFolds) cv(p *Problem, cols [][]float64) float64 {
	use := make([]bool, p.rows())
	var sq float64
	var n int
	sum := make([]float64, pf.n)
	cnt := make([]float64, pf.n)
	for k := 0; k < 5; k++ {
		for r := range use {
			use[r] = pf.fold[r] != k
		}
		c := fitLinear(cols, p.Y, use, false)
		// Per point, in the order of the points (a sum in map order would
		// change in its last digits from one run to the next).
		clear(sum)
		clear(cnt)
		for r := range p.Y {
			if use[r] {
				continue
			}
			pred := c[0]
			for t, col := range cols {
				pred += c[t+1] * col[r]
			}
			sum[pf.point[r]] += p.Y[r] - pred
			cnt[pf.point[r]]++
		}
		for pt, s := range sum {
			if cnt[pt] == 0 {
				continue
			}
			m := s / cnt[pt]
			sq += m * m
			n++
		}
	}
	if n == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(sq / float64(n))
}

// fitTimeRobust fits a time, setting aside spikes (see FitTime).
func fitTimeRobust(p *Problem, opt FitOptions) Formula {
	f := FitFormula(p, opt, false)
	if p.rows() < 6 {
		return f
	}
	drop := make([]bool, p.rows())
	dropped := 0
	sp := columns(p.Names)
	state := make([]float64, len(p.Cols))
	for round := 0; round < 4; round++ {
		if err := f.Compile(sp); err != nil {
			return f
		}
		var res []float64
		var idx []int
		for r := range p.Y {
			if drop[r] {
				continue
			}
			for c := range p.Cols {
				state[c] = p.Cols[c][r]
			}
			res = append(res, p.Y[r]-f.Eval(state))
			idx = append(idx, r)
		}
		med := stats.Median(res)
		dev := make([]float64, len(res))
		for i, v := range res {
			dev[i] = math.Abs(v - med)
		}
		cut := math.Max(4*1.4826*stats.Median(dev), spikeNs)
		order := make([]int, len(res))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(i, j int) bool { return dev[order[i]] > dev[order[j]] })
		var cand []int
		for _, i := range order {
			if dev[i] <= cut || dropped+len(cand) >= p.rows()/4 {
				break
			}
			cand = append(cand, idx[i])
		}
		if len(cand) == 0 || systematic(p, cand) {
			break
		}
		for _, r := range cand {
			drop[r] = true
		}
		dropped += len(cand)
		var keep []int
		for r := range p.Y {
			if !drop[r] {
				keep = append(keep, r)
			}
		}
		f = FitFormula(p.rowsOf(keep), opt, false)
		f.Fit.Outliers = dropped
	}
	return f
}

// systematic reports whether rows set aside as spikes share a place in the program:
// half of them (and at least 3) with one value of one counter (the first iteration
// of a loop, whose cold caches or page faults are the program's own cost) — then
// they are kept.
func systematic(p *Problem, rows []int) bool {
	need := max(3, (len(rows)+1)/2)
	if len(rows) < need {
		return false
	}
	for c, name := range p.Names {
		if !strings.HasPrefix(name, "#") || maxAbs(p.Cols[c]) == 0 {
			continue
		}
		lo, hi := p.Cols[c][0], p.Cols[c][0]
		for _, v := range p.Cols[c] {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if lo == hi {
			continue // the same everywhere: says nothing about where the spikes are
		}
		freq := map[float64]int{}
		for _, r := range rows {
			v := p.Cols[c][r]
			freq[v]++
			if freq[v] >= need {
				return true
			}
		}
	}
	return false
}
