// This file fits formulas: polynomial least squares over variables chosen by
// correlation analysis and forward selection (the metalayer article, docs/methods.md: "arguments selected by
// correlation analysis"), and GMDH, the group method of data handling (Ivakhnenko
// 1971): layers of two-input quadratic neurons, each layer keeping the neurons that
// do best on a validation split (the external criterion), stopping when the
// criterion no longer improves.

package regress

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/stats"
	"gonum.org/v1/gonum/mat"
)

// Family is the kind of regression used for times and data.
type Family uint8

// The families.
const (
	PolyFamily Family = iota // polynomial least squares
	GMDHFamily               // GMDH network
	AutoFamily               // both, keeping the one with the lower cross-validated error
)

var familyNames = [...]string{"poly", "gmdh", "auto"}

func (f Family) String() string { return familyNames[f] }

// ParseFamily reads a family name.
func ParseFamily(s string) (Family, error) {
	for i, n := range familyNames {
		if n == s {
			return Family(i), nil
		}
	}
	return 0, fmt.Errorf("unknown model family %q (want poly, gmdh or auto)", s)
}

// FitOptions tune the regressions.
type FitOptions struct {
	Family     Family
	MaxVars    int // variables in a polynomial (3)
	MaxDegree  int // its total degree (3)
	Candidates int // variables kept by the correlation ranking (6)
	Folds      int // k of the k-fold cross-validation (5)
	// MaxSelectRows bounds the rows used to choose variables and degree (2000);
	// MaxFitRows those of the final fit (50000). Larger sets are sampled evenly.
	MaxSelectRows, MaxFitRows int
}

// DefaultFitOptions are the defaults of model build.
var DefaultFitOptions = FitOptions{Family: PolyFamily, MaxVars: 3, MaxDegree: 3, Candidates: 6, Folds: 5,
	MaxSelectRows: 2000, MaxFitRows: 50000}

// A Problem is a regression: candidate columns, their names, the target, and the run
// of each row (folds are whole runs, so that validation rows are never neighbours
// of training rows in time).
type Problem struct {
	Cols  [][]float64
	Names []string
	Y     []float64
	Run   []int32 // the rows' input points (cross-validation folds keep them together)
	// W weighs the rows (nil: all 1); model build (package predict) gives each
	// transition of a run of m transitions a weight ∝ 1/√m.
	W []float64
	// Nonneg marks a quantity that cannot be negative (a time, a trip count).
	Nonneg bool
	// PerPoint scores the cross-validation by the mean error over each input
	// point's rows (a transition's time, whose sum over a run is what counts).
	PerPoint bool
}

func (p *Problem) rows() int { return len(p.Y) }

// subset returns the problem restricted to at most n rows, evenly spaced.
func (p *Problem) subset(n int) *Problem {
	if p.rows() <= n {
		return p
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = int(int64(i) * int64(p.rows()) / int64(n))
	}
	return p.rowsOf(idx)
}

// rowsOf returns the problem restricted to the rows idx.
func (p *Problem) rowsOf(idx []int) *Problem {
	q := &Problem{Names: p.Names, Y: pick(p.Y, idx), Run: make([]int32, len(idx)), Nonneg: p.Nonneg, PerPoint: p.PerPoint}
	for i, k := range idx {
		q.Run[i] = p.Run[k]
	}
	for _, c := range p.Cols {
		q.Cols = append(q.Cols, pick(c, idx))
	}
	if p.W != nil {
		q.W = pick(p.W, idx)
	}
	return q
}

func pick(x []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, k := range idx {
		out[i] = x[k]
	}
	return out
}

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

// FitFormula fits y. With exact set, the exact forms are tried first — a constant,
// a copy of a feature, a feature plus a constant — as data rules often are.
func FitFormula(p *Problem, opt FitOptions, exact bool) Formula {
	y := p.Y
	if p.rows() == 0 {
		return Formula{Kind: Const}
	}
	mean, lo, hi := 0.0, y[0], y[0]
	for _, v := range y {
		mean += math.Abs(v)
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	mean /= float64(len(y))
	tol := 1e-12 * math.Max(1, math.Max(math.Abs(lo), math.Abs(hi)))
	if hi-lo <= tol {
		return Formula{Kind: Const, Value: y[0], Fit: Quality{N: len(y), R2: 1, Mean: mean}}
	}
	if exact {
		for c, x := range p.Cols {
			d0 := y[0] - x[0]
			same, shift := true, true
			for r := range y {
				d := y[r] - x[r]
				same = same && math.Abs(d) <= tol
				shift = shift && math.Abs(d-d0) <= tol
				if !same && !shift {
					break
				}
			}
			if same {
				return Formula{Kind: Copy, Vars: []string{p.Names[c]}, Fit: Quality{N: len(y), R2: 1, Mean: mean}}
			}
			if shift {
				return Formula{Kind: Shift, Vars: []string{p.Names[c]}, Value: d0, Fit: Quality{N: len(y), R2: 1, Mean: mean}}
			}
		}
	}
	switch opt.Family {
	case GMDHFamily:
		return fitGMDH(p, opt)
	case AutoFamily:
		// GMDH when it cross-validates clearly better (by 10%), and the polynomial
		// is not already exact to rounding (then it is the simpler and the more
		// precise of the two).
		a := fitPoly(p, opt)
		if a.Fit.CVRel() < 1e-9 || a.Fit.Mean > 0 && a.Fit.RMSE < 1e-11*a.Fit.Mean {
			return a
		}
		if b := fitGMDH(p, opt); b.Fit.CVRMSE < 0.9*a.Fit.CVRMSE {
			return b
		}
		return a
	}
	return fitPoly(p, opt)
}

// rankByCorrelation returns the non-constant columns ordered by |corr(x, y)|,
// highest first, at most n of them.
func rankByCorrelation(p *Problem, n int) []int {
	type cand struct {
		c int
		r float64
	}
	var cs []cand
	for c, x := range p.Cols {
		r := corr(x, p.Y)
		if math.IsNaN(r) {
			continue // constant column
		}
		cs = append(cs, cand{c, math.Abs(r)})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].r > cs[j].r })
	var out []int
	for _, c := range cs {
		if len(out) == n {
			break
		}
		// Leave out a column that is (almost) a linear copy of one already kept: it
		// adds nothing but an ill-conditioned design.
		dup := false
		for _, k := range out {
			if math.Abs(corr(p.Cols[k], p.Cols[c.c])) > 1-1e-12 {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, c.c)
		}
	}
	return out
}

// corr is Pearson's correlation; NaN when either side is constant.
func corr(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx <= 1e-300*n || syy <= 1e-300*n {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// monomials returns the exponent vectors of all monomials in k variables of total
// degree at most d, the constant first.
func monomials(k, d int) [][]int {
	var out [][]int
	cur := make([]int, k)
	var rec func(v, left int)
	rec = func(v, left int) {
		if v == k {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for e := 0; e <= left; e++ {
			cur[v] = e
			rec(v+1, left-e)
		}
		cur[v] = 0
	}
	rec(0, d)
	sort.SliceStable(out, func(i, j int) bool { return degree(out[i]) < degree(out[j]) })
	return out
}

func degree(t []int) int {
	s := 0
	for _, e := range t {
		s += e
	}
	return s
}

// scaled holds columns divided by their largest magnitude, for conditioning.
type scaled struct {
	cols  [][]float64
	scale []float64
	y     []float64
	sy    float64
	sw    []float64 // square roots of the row weights; nil: all 1
	// agg, when set, gives each row's input point: cross-validation then scores
	// the mean error over each point's rows in a fold rather than each row's (see
	// cvPoly).
	agg []int32
}

// weigh sets the row weights.
func (s *scaled) weigh(w []float64) *scaled {
	if w == nil {
		return s
	}
	s.sw = make([]float64, len(w))
	for i, v := range w {
		s.sw[i] = math.Sqrt(v)
	}
	return s
}

func scaleCols(cols [][]float64, y []float64) *scaled {
	s := &scaled{sy: maxAbs(y)}
	if s.sy == 0 {
		s.sy = 1
	}
	s.y = make([]float64, len(y))
	for i, v := range y {
		s.y[i] = v / s.sy
	}
	for _, c := range cols {
		m := maxAbs(c)
		if m == 0 {
			m = 1
		}
		x := make([]float64, len(c))
		for i, v := range c {
			x[i] = v / m
		}
		s.cols = append(s.cols, x)
		s.scale = append(s.scale, m)
	}
	return s
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// phi fills the design row of row r.
func phi(dst []float64, cols [][]float64, r int, terms [][]int) {
	for k, t := range terms {
		p := 1.0
		for v, e := range t {
			x := cols[v][r]
			for ; e > 0; e-- {
				p *= x
			}
		}
		dst[k] = p
	}
}

// folds assigns rows to k folds by run when there are at least k runs, else by
// position.
func folds(run []int32, k int) ([]int, int) {
	distinct := map[int32]int{}
	for _, r := range run {
		if _, ok := distinct[r]; !ok {
			distinct[r] = len(distinct)
		}
	}
	f := make([]int, len(run))
	if len(distinct) >= k {
		for i, r := range run {
			f[i] = distinct[r] % k
		}
		return f, k
	}
	if len(run) < 2*k {
		k = max(2, len(run)/2)
	}
	for i := range f {
		f[i] = i % k
	}
	return f, k
}

// cvPoly returns the k-fold cross-validated RMSE (in the units of s.y; the largest
// tenth of the errors left out) of the polynomial with the given terms, by the normal equations: the Gram matrix of the
// training part of each fold is the total minus the fold's own. The errors are the
// rows', or with s.agg the mean error of each input point's rows, and the per-fold
// RMSEs are returned too.
func cvPoly(s *scaled, fold []int, k int, terms [][]int) (float64, []float64) {
	T := len(terms)
	G := make([][]float64, k)
	b := make([][]float64, k)
	for f := range G {
		G[f] = make([]float64, T*T)
		b[f] = make([]float64, T)
	}
	row := make([]float64, T)
	for r := range s.y {
		phi(row, s.cols, r, terms)
		yr := s.y[r]
		if s.sw != nil {
			for i := range row {
				row[i] *= s.sw[r]
			}
			yr *= s.sw[r]
		}
		f := fold[r]
		g, bf := G[f], b[f]
		for i := 0; i < T; i++ {
			ri := row[i]
			for j := i; j < T; j++ {
				g[i*T+j] += ri * row[j]
			}
			bf[i] += ri * yr
		}
	}
	tot := make([]float64, T*T)
	btot := make([]float64, T)
	for f := range G {
		for i := range tot {
			tot[i] += G[f][i]
		}
		for i := range btot {
			btot[i] += b[f][i]
		}
	}
	coef := make([][]float64, k)
	A := make([]float64, T*T)
	rhs := make([]float64, T)
	for f := 0; f < k; f++ {
		for i := 0; i < T; i++ {
			for j := i; j < T; j++ {
				v := tot[i*T+j] - G[f][i*T+j]
				A[i*T+j], A[j*T+i] = v, v
			}
			rhs[i] = btot[i] - b[f][i]
		}
		coef[f] = solveSym(A, rhs, T)
	}
	sq := make([]float64, len(s.y))
	perFold := make([][]float64, k)
	acc := map[[2]int][2]float64{} // (point, fold) → sum of errors, rows
	for r := range s.y {
		phi(row, s.cols, r, terms)
		c := coef[fold[r]]
		p := 0.0
		for i := range row {
			p += c[i] * row[i]
		}
		d := p - s.y[r]
		if s.sw != nil {
			d *= s.sw[r]
		}
		if s.agg != nil {
			key := [2]int{int(s.agg[r]), fold[r]}
			a := acc[key]
			a[0] += p - s.y[r]
			a[1]++
			acc[key] = a
			continue
		}
		sq[r] = d * d
		perFold[fold[r]] = append(perFold[fold[r]], d*d)
	}
	if s.agg != nil {
		// A time's errors matter summed over a run: a formula whose row errors
		// cancel within each point (the noise of single transitions) is right
		// about the total; one that is off on average at some points is not.
		sq = sq[:0]
		for key, a := range acc {
			e := a[0] / a[1]
			sq = append(sq, e*e)
			perFold[key[1]] = append(perFold[key[1]], e*e)
		}
	}
	fe := make([]float64, k)
	for f := range fe {
		if len(perFold[f]) > 0 {
			fe[f] = trimmedRMS(perFold[f])
		}
	}
	return trimmedRMS(sq), fe
}

// trimmedRMS is the root mean square of errors (given squared) without the largest
// tenth, so that a few spikes in measured times do not decide which formula wins.
func trimmedRMS(sq []float64) float64 {
	sort.Float64s(sq)
	n := len(sq) - len(sq)/10
	var s float64
	for _, v := range sq[:n] {
		s += v
	}
	return math.Sqrt(s / float64(n))
}

// solveSym solves the n×n symmetric system A x = b (A row-major, overwritten) by
// Gaussian elimination with partial pivoting, after adding a ridge of 1e-12 of the
// largest diagonal element so that a rank-deficient design still has a solution.
func solveSym(A, b []float64, n int) []float64 {
	M := make([]float64, n*(n+1))
	dmax := 0.0
	for i := 0; i < n; i++ {
		dmax = math.Max(dmax, math.Abs(A[i*n+i]))
	}
	ridge := 1e-12 * dmax
	for i := 0; i < n; i++ {
		copy(M[i*(n+1):i*(n+1)+n], A[i*n:i*n+n])
		M[i*(n+1)+i] += ridge
		M[i*(n+1)+n] = b[i]
	}
	w := n + 1
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(M[r*w+c]) > math.Abs(M[p*w+c]) {
				p = r
			}
		}
		if p != c {
			for j := 0; j < w; j++ {
				M[c*w+j], M[p*w+j] = M[p*w+j], M[c*w+j]
			}
		}
		piv := M[c*w+c]
		if piv == 0 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := M[r*w+c] / piv
			if f == 0 {
				continue
			}
			for j := c; j < w; j++ {
				M[r*w+j] -= f * M[c*w+j]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := M[i*w+n]
		for j := i + 1; j < n; j++ {
			s -= M[i*w+j] * x[j]
		}
		if M[i*w+i] != 0 {
			x[i] = s / M[i*w+i]
		}
	}
	return x
}

// lstsq solves min ‖A c − y‖ for the design of terms over s's columns by a thin SVD
// (gonum/mat), with singular values below 1e-13 of the largest treated as zero.
func lstsq(s *scaled, terms [][]int) ([]float64, error) {
	n, T := len(s.y), len(terms)
	A := mat.NewDense(n, T, nil)
	row := make([]float64, T)
	y := s.y
	if s.sw != nil {
		y = make([]float64, n)
	}
	for r := 0; r < n; r++ {
		phi(row, s.cols, r, terms)
		if s.sw != nil {
			for i := range row {
				row[i] *= s.sw[r]
			}
			y[r] = s.y[r] * s.sw[r]
		}
		A.SetRow(r, row)
	}
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil, fmt.Errorf("SVD did not converge")
	}
	rank := svd.Rank(1e-13)
	if rank == 0 {
		return make([]float64, T), nil
	}
	var x mat.VecDense
	svd.SolveVecTo(&x, mat.NewVecDense(n, y), rank)
	out := make([]float64, T)
	for i := range out {
		out[i] = x.AtVec(i)
	}
	return out, nil
}

// fitPoly chooses variables and degree by forward selection with cross-validation —
// candidates ranked by correlation with y, each step adding the variable and degree
// that lower the cross-validated error most, while it drops by at least 5% overall
// and in four folds of five; a variable's degree goes up while each step lowers the
// error by 5%; for data, when no variable helps alone, a pair may enter together
// (an interaction) — then fits the chosen polynomial on up to MaxFitRows rows. A
// time's cross-validated error is scored per input point (see cvPoly).
func fitPoly(p *Problem, opt FitOptions) Formula {
	sel := p.subset(opt.MaxSelectRows)
	cands := rankByCorrelation(sel, opt.Candidates)
	fold, k := folds(sel.Run, opt.Folds)
	var chosen []int
	deg := 0
	s0 := scaleCols(nil, sel.Y).weigh(sel.W)
	if sel.PerPoint { // a time: judged by its error per input point
		s0.agg = sel.Run
	}
	best, bestFolds := cvPoly(s0, fold, k, [][]int{{}})
	best *= s0.sy
	for i := range bestFolds {
		bestFolds[i] *= s0.sy
	}
	exact := 1e-12 * maxAbs(sel.Y)
	// try scores the polynomial over vars: the cross-validated error of the best
	// degree (each further degree must lower it by 5% more), that degree, and the
	// per-fold errors; +Inf when the rows cannot support even degree 1.
	try := func(vars []int) (float64, int, []float64) {
		cols := make([][]float64, len(vars))
		for i, v := range vars {
			cols[i] = sel.Cols[v]
		}
		s := scaleCols(cols, sel.Y).weigh(sel.W)
		s.agg = s0.agg
		// A higher degree must earn its terms, which explode when extrapolated.
		var errs [][]float64
		var es []float64
		for d := 1; d <= opt.MaxDegree; d++ {
			terms := monomials(len(vars), d)
			// Every training part of the cross-validation (4/5 of the rows) must
			// have more rows than terms.
			if 5*(len(terms)+1) > 4*sel.rows() {
				break
			}
			e, fe := cvPoly(s, fold, k, terms)
			for i := range fe {
				fe[i] *= s.sy
			}
			es = append(es, e*s.sy)
			errs = append(errs, fe)
		}
		if len(es) == 0 {
			return math.Inf(1), 0, nil
		}
		d := 0
		for d+1 < len(es) && es[d+1] < 0.95*es[d] {
			d++
		}
		return es[d], d + 1, errs[d]
	}
	// accept reports whether a step to error e with per-fold errors fe improves
	// enough: by 5% overall and in four folds of five, not from one fold (a
	// constant-per-run input fitting the runs' own noise does that).
	accept := func(e float64, fe []float64) bool {
		if !(e < best*0.95) {
			return false
		}
		better := 0
		for f := range fe {
			if fe[f] < bestFolds[f] || fe[f] <= exact {
				better++
			}
		}
		return 5*better >= 4*len(fe)
	}
	for len(chosen) < opt.MaxVars && best > exact {
		stepBest, stepC, stepD := math.Inf(1), -1, 0
		var stepFolds []float64
		for _, c := range cands {
			if containsInt(chosen, c) {
				continue
			}
			e, d, fe := try(append(append([]int(nil), chosen...), c))
			if e < stepBest {
				stepBest, stepC, stepD, stepFolds = e, c, d, fe
			}
		}
		if stepC >= 0 && accept(stepBest, stepFolds) {
			chosen = append(chosen, stepC)
			best, deg, bestFolds = stepBest, stepD, stepFolds
			continue
		}
		// No variable helps alone: two may together, through their product
		// (e := e − w·e: neither e nor w alone says much of the new e). For data
		// only: a time is a sum of costs, each of which shows alone.
		if p.Nonneg || len(chosen)+2 > opt.MaxVars {
			break
		}
		pairBest, pairD := math.Inf(1), 0
		var pair []int
		var pairFolds []float64
		for i, c1 := range cands {
			for _, c2 := range cands[i+1:] {
				if containsInt(chosen, c1) || containsInt(chosen, c2) {
					continue
				}
				e, d, fe := try(append(append([]int(nil), chosen...), c1, c2))
				if d >= 2 && e < pairBest {
					pairBest, pairD, pair, pairFolds = e, d, []int{c1, c2}, fe
				}
			}
		}
		if pair == nil || !accept(pairBest, pairFolds) {
			break
		}
		chosen = append(chosen, pair...)
		best, deg, bestFolds = pairBest, pairD, pairFolds
	}
	// The final fit; for a quantity that cannot be negative (a time, a trip
	// count), at a degree low enough that it stays positive well beyond the
	// training range, and no higher than its variation over the training rows
	// supports (weakCurve).
	full := p.subset(opt.MaxFitRows)
	for {
		f := finalPoly(p, full, chosen, deg)
		f.Fit.CVRMSE = best
		if p.Nonneg && len(chosen) > 0 && f.Fit.R2 < minExplained {
			// Explains almost nothing of the rows (the selection saw a wobble in
			// the bulk of heavy-tailed times): a constant, which cannot explode
			// when extrapolated.
			c := finalPoly(p, full, nil, 0)
			c.Fit.CVRMSE = f.Fit.CVRMSE
			return c
		}
		if deg <= 1 || !p.Nonneg || positiveBeyond(&f, full, chosen) && !weakCurve(&f, full, chosen) && growsAsCosts(&f, full, chosen, deg) {
			return f
		}
		deg--
	}
}

// minExplained is the R² under which a formula of a time or a count explains
// next to nothing of its rows (a wobble in the bulk of heavy-tailed times) and a
// constant, which cannot explode when extrapolated, is kept instead.
const minExplained = 0.05

// weakCurve reports whether f's predictions over the training rows vary by less
// than half their mean magnitude: then its curvature is too weak to be trusted
// beyond them (a cubic fitted to a 20% wobble explodes a decade away), and a lower
// degree is used.
func weakCurve(f *Formula, full *Problem, chosen []int) bool {
	sp := columns(f.Vars)
	if err := f.Compile(sp); err != nil {
		return false
	}
	st := make([]float64, len(chosen))
	lo, hi, mean := math.Inf(1), math.Inf(-1), 0.0
	for r := 0; r < full.rows(); r++ {
		for i, c := range chosen {
			st[i] = full.Cols[c][r]
		}
		v := f.Eval(st)
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		mean += math.Abs(v)
	}
	mean /= float64(full.rows())
	return hi-lo < 0.5*mean
}

// growsAsCosts reports whether f, a polynomial of degree deg in the inputs
// alone, extrapolates as a sum of costs does — as any polynomial whose
// coefficients are all non-negative does: with every input at 1, 4 and 16 times
// its largest training value, f is positive, never falls, and grows by at most
// 4^deg from one to the next. A fit that breaks this owes its shape to terms
// that cancel over the training range: a step inside it drawn by a cubic (the
// arc after mergesort's last pass, whose two frees unmap the arrays only above
// glibc's mmap threshold: 427 times its value at the top of the range at 4
// times it; TestPolyTimeGrowth), or a bend drawn by a concave quadratic
// (mergesort's pass time −1.0·10⁴ + 4.3·n − 6.4·10⁻⁶·n², negative from 6.8·10⁵
// on, so that a probe at 16 times the range found its passes taking no time in
// the model). A lower degree is used. Formulas of variables recorded within a
// run are left to jointlyPositive.
func growsAsCosts(f *Formula, full *Problem, chosen []int, deg int) bool {
	if slices.ContainsFunc(f.Vars, func(v string) bool { return !strings.HasPrefix(v, "$") }) {
		return true
	}
	if f.Compile(columns(f.Vars)) != nil {
		return true
	}
	top := make([]float64, len(chosen))
	for i, c := range chosen {
		top[i] = slices.Max(full.Cols[c])
		if !(top[i] > 0) {
			return true
		}
	}
	at := func(scale float64) float64 {
		x := make([]float64, len(top))
		for i, v := range top {
			x[i] = scale * v
		}
		return f.Eval(x)
	}
	step := math.Pow(4, float64(deg))
	y1, y4, y16 := at(1), at(4), at(16)
	return y1 > 0 && y4 >= y1 && y16 >= y4 && y4 <= step*y1 && y16 <= step*y4
}

// finalPoly fits the polynomial of the given variables and degree on full.
func finalPoly(p, full *Problem, chosen []int, deg int) Formula {
	f := Formula{Kind: Poly}
	cols := make([][]float64, len(chosen))
	for i, c := range chosen {
		f.Vars = append(f.Vars, p.Names[c])
		cols[i] = full.Cols[c]
	}
	f.Terms = monomials(len(chosen), deg)
	s := scaleCols(cols, full.Y).weigh(full.W)
	coef, err := lstsq(s, f.Terms)
	if err != nil {
		coef = make([]float64, len(f.Terms))
		m := 0.0
		for _, v := range full.Y {
			m += v
		}
		coef[0] = m / float64(full.rows()) / s.sy
	}
	f.Coef = make([]float64, len(coef))
	for i, t := range f.Terms {
		c := coef[i] * s.sy
		for v, e := range t {
			c /= math.Pow(s.scale[v], float64(e))
		}
		f.Coef[i] = c
	}
	f.Fit = quality(full, func(r int) float64 {
		sum := 0.0
		for i, t := range f.Terms {
			x := f.Coef[i]
			for v, e := range t {
				x *= math.Pow(cols[v][r], float64(e))
			}
			sum += x
		}
		return sum
	})
	return f
}

// positiveBeyond reports whether f stays positive when each of its variables in
// turn goes to 4 times its training span beyond its largest and smallest values,
// the others at their medians. A formula of variables recorded within a run is
// checked otherwise (jointlyPositive): such a variable moves with the inputs (a
// row index runs to n), and one moved alone reaches states no run has.
func positiveBeyond(f *Formula, full *Problem, chosen []int) bool {
	sp := columns(f.Vars)
	if err := f.Compile(sp); err != nil {
		return true
	}
	if slices.ContainsFunc(f.Vars, func(v string) bool { return !strings.HasPrefix(v, "$") }) {
		return jointlyPositive(f, full, chosen)
	}
	med := make([]float64, len(chosen))
	lo := make([]float64, len(chosen))
	hi := make([]float64, len(chosen))
	for i, c := range chosen {
		med[i] = stats.Median(full.Cols[c])
		lo[i], hi[i] = full.Cols[c][0], full.Cols[c][0]
		for _, v := range full.Cols[c] {
			lo[i], hi[i] = math.Min(lo[i], v), math.Max(hi[i], v)
		}
	}
	st := make([]float64, len(chosen))
	for i := range chosen {
		span := hi[i] - lo[i]
		for _, x := range []float64{hi[i] + 4*span, lo[i] - 4*span, hi[i], lo[i]} {
			if lo[i] >= 0 && x < 0 {
				continue // a non-negative variable (a size, a counter) stays so
			}
			copy(st, med)
			st[i] = x
			if f.Eval(st) < 0 {
				return false
			}
		}
	}
	return true
}

// jointlyPositive reports whether f, compiled over the chosen columns, stays
// positive at the training rows with every variable scaled by 4 together — a run
// 4 times larger in every respect —, up to the clamp the interpreter applies to a
// negative time: the rows' negative values may sum to at most a hundredth of their
// positive ones (a row time near zero, such as a loop's first row, may dip below
// it by its fit's intercept without changing a run's total).
func jointlyPositive(f *Formula, full *Problem, chosen []int) bool {
	st := make([]float64, len(chosen))
	step := max(1, full.rows()/500)
	var pos, neg float64
	for r := 0; r < full.rows(); r += step {
		for i, c := range chosen {
			st[i] = 4 * full.Cols[c][r]
		}
		if v := f.Eval(st); v > 0 {
			pos += v
		} else {
			neg -= v
		}
	}
	return neg <= 0.01*pos
}

// quality measures a prediction function on a problem's rows.
func quality(p *Problem, pred func(r int) float64) Quality {
	q := Quality{N: p.rows()}
	var my float64
	for _, v := range p.Y {
		my += v
		q.Mean += math.Abs(v)
	}
	n := float64(p.rows())
	my /= n
	q.Mean /= n
	var sse, sst float64
	for r, v := range p.Y {
		d := pred(r) - v
		sse += d * d
		sst += (v - my) * (v - my)
	}
	q.RMSE = math.Sqrt(sse / n)
	if sst > 0 {
		q.R2 = 1 - sse/sst
	} else if sse == 0 {
		q.R2 = 1
	}
	return q
}

func containsInt(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

// gmdhMaxLayers and gmdhWidth bound the network: at most 5 layers of the 8 best
// neurons each (the "freedom of choice").
const (
	gmdhMaxLayers = 5
	gmdhWidth     = 8
)

// fitGMDH fits a GMDH network. The inputs are the candidates of the correlation
// ranking, standardised. Rows are split into a training part A and a validation
// part B (by run, one run in three to B); each layer fits every pair of its inputs
// (the previous layer's neurons and the original inputs) on A, and keeps the
// gmdhWidth neurons with the lowest mean square error on B. Layers are added while
// the best error on B drops by at least 0.1%. The chosen network is then refitted,
// neuron by neuron, on all rows.
func fitGMDH(p *Problem, opt FitOptions) Formula {
	full := p.subset(opt.MaxFitRows)
	cands := rankByCorrelation(full.subset(opt.MaxSelectRows), opt.Candidates)
	f := Formula{Kind: GMDH}
	if len(cands) == 0 {
		m := 0.0
		for _, v := range full.Y {
			m += v
		}
		return Formula{Kind: Const, Value: m / float64(full.rows()), Fit: quality(full, func(int) float64 { return m / float64(full.rows()) })}
	}
	n := full.rows()
	net := &Net{}
	z := make([][]float64, len(cands))
	for i, c := range cands {
		f.Vars = append(f.Vars, p.Names[c])
		mu, sd := stats.MeanSD(full.Cols[c])
		if sd == 0 {
			sd = 1
		}
		net.Mu = append(net.Mu, mu)
		net.Sd = append(net.Sd, sd)
		z[i] = make([]float64, n)
		for r, v := range full.Cols[c] {
			z[i][r] = (v - mu) / sd
		}
	}
	net.MuY, net.SdY = stats.MeanSD(full.Y)
	if net.SdY == 0 {
		net.SdY = 1
	}
	ys := make([]float64, n)
	for r, v := range full.Y {
		ys[r] = (v - net.MuY) / net.SdY
	}
	fold, _ := folds(full.Run, 3)
	inB := make([]bool, n)
	for r := range inB {
		inB[r] = fold[r] == 2
	}
	type cand struct {
		nr  Neuron
		err float64
		out []float64
	}
	var prev []cand
	bestErr := math.Inf(1)
	var layers [][]Neuron
	for l := 0; l < gmdhMaxLayers; l++ {
		// Inputs of this layer: the previous layer's outputs, then the original inputs.
		var ins [][]float64
		for _, c := range prev {
			ins = append(ins, c.out)
		}
		ins = append(ins, z...)
		var cs []cand
		for i := 0; i < len(ins); i++ {
			for j := i + 1; j < len(ins); j++ {
				if l > 0 && i >= len(prev) && j >= len(prev) {
					continue // a pair of original inputs was tried in layer 0
				}
				nr, err := fitNeuron(ins[i], ins[j], ys, inB, false)
				nr.In = [2]int{i, j}
				cs = append(cs, cand{nr: nr, err: err})
			}
		}
		if len(ins) == 1 {
			nr, err := fitNeuron(ins[0], ins[0], ys, inB, false)
			cs = append(cs, cand{nr: nr, err: err})
		}
		if len(cs) == 0 {
			break
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].err < cs[b].err })
		if !(cs[0].err < bestErr*(1-1e-3)) {
			break
		}
		bestErr = cs[0].err
		if len(cs) > gmdhWidth {
			cs = cs[:gmdhWidth]
		}
		layer := make([]Neuron, len(cs))
		for k := range cs {
			out := make([]float64, n)
			for r := range out {
				out[r] = cs[k].nr.eval(ins[cs[k].nr.In[0]][r], ins[cs[k].nr.In[1]][r])
			}
			cs[k].out = out
			layer[k] = cs[k].nr
		}
		layers = append(layers, layer)
		prev = cs
		if bestErr < 1e-24 {
			break
		}
	}
	net.Layers, net.Out = pruneNet(layers, 0)
	// Refit on all rows, layer by layer.
	var outs [][]float64
	for l := range net.Layers {
		var ins [][]float64
		ins = append(ins, outs...)
		ins = append(ins, z...)
		next := make([][]float64, len(net.Layers[l]))
		for k := range net.Layers[l] {
			nr := &net.Layers[l][k]
			refit, _ := fitNeuron(ins[nr.In[0]], ins[nr.In[1]], ys, nil, true)
			nr.Coef = refit.Coef
			o := make([]float64, n)
			for r := range o {
				o[r] = nr.eval(ins[nr.In[0]][r], ins[nr.In[1]][r])
			}
			next[k] = o
		}
		outs = next
	}
	f.Net = net
	final := outs[net.Out]
	f.Fit = quality(full, func(r int) float64 { return net.MuY + net.SdY*final[r] })
	f.Fit.CVRMSE = math.Sqrt(bestErr) * net.SdY
	return f
}

// fitNeuron fits Ivakhnenko's quadratic c0 + c1 a + c2 b + c3 ab + c4 a² + c5 b² by
// the normal equations on the rows not in B (all rows when all is set) and returns
// it with its mean square error on B (on all rows when all is set).
func fitNeuron(a, b, y []float64, inB []bool, all bool) (Neuron, float64) {
	var G [36]float64
	var rhs [6]float64
	var row [6]float64
	fill := func(r int) {
		x, z := a[r], b[r]
		row = [6]float64{1, x, z, x * z, x * x, z * z}
	}
	for r := range y {
		if !all && inB[r] {
			continue
		}
		fill(r)
		for i := 0; i < 6; i++ {
			for j := i; j < 6; j++ {
				G[i*6+j] += row[i] * row[j]
			}
			rhs[i] += row[i] * y[r]
		}
	}
	for i := 0; i < 6; i++ {
		for j := 0; j < i; j++ {
			G[i*6+j] = G[j*6+i]
		}
	}
	c := solveSym(G[:], rhs[:], 6)
	var nr Neuron
	copy(nr.Coef[:], c)
	var sse float64
	var cnt int
	for r := range y {
		if !all && !inB[r] {
			continue
		}
		d := nr.eval(a[r], b[r]) - y[r]
		sse += d * d
		cnt++
	}
	if cnt == 0 {
		return nr, math.Inf(1)
	}
	return nr, sse / float64(cnt)
}

// pruneNet keeps only the neurons the output (neuron out of the last layer) depends
// on, renumbering the inputs.
func pruneNet(layers [][]Neuron, out int) ([][]Neuron, int) {
	if len(layers) == 0 {
		return nil, 0
	}
	L := len(layers)
	used := make([][]bool, L)
	for l := range used {
		used[l] = make([]bool, len(layers[l]))
	}
	used[L-1][out] = true
	for l := L - 1; l > 0; l-- {
		for k, nr := range layers[l] {
			if !used[l][k] {
				continue
			}
			for _, in := range nr.In {
				if in < len(layers[l-1]) {
					used[l-1][in] = true
				}
			}
		}
	}
	newIndex := make([][]int, L)
	pruned := make([][]Neuron, L)
	for l := range layers {
		newIndex[l] = make([]int, len(layers[l]))
		for k, nr := range layers[l] {
			if !used[l][k] {
				newIndex[l][k] = -1
				continue
			}
			newIndex[l][k] = len(pruned[l])
			if l > 0 {
				prevOld, prevNew := len(layers[l-1]), len(pruned[l-1])
				for i, in := range nr.In {
					if in < prevOld {
						nr.In[i] = newIndex[l-1][in]
					} else {
						nr.In[i] = in - prevOld + prevNew
					}
				}
			}
			pruned[l] = append(pruned[l], nr)
		}
	}
	return pruned, newIndex[L-1][out]
}
