// This file holds what every fitting method shares: the families, the options,
// the problem (rows of variables and the value to fit), and FitFormula, which picks
// the method: polynomial least squares (poly.go), GMDH (gmdh.go), or for times the
// time-specific fits of time.go.

package regress

import (
	"fmt"
	"math"
	"sort"
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
