// This file fits polynomials: least squares over variables chosen by correlation
// analysis and forward selection with cross-validation (the metalayer article,
// docs/methods.md: "arguments selected by correlation analysis").

package regress

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/stats"
)

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

// maxAbs returns max |x_i| (0 for no x), as math.Max folds it: +Inf if any x_i is
// infinite, else NaN if any is NaN. It compares directly in the loop, which the
// fits run once per column and fold (math.Max's special cases cost more than the
// comparison).
func maxAbs(x []float64) float64 {
	m, nan := 0.0, false
	for _, v := range x {
		if a := math.Abs(v); a > m {
			m = a
		} else if a != a {
			nan = true
		}
	}
	if nan && !math.IsInf(m, 1) {
		return math.NaN()
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
