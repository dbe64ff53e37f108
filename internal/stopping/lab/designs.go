// This file implements the variance-reduction designs of the laboratory: antithetic
// pairs and Latin hypercube samples, measured against independent draws, with the
// procedure freq runs under a design.

package lab

import (
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/samplemv"
)

// A Model is a block's count as a function of the program's inputs, each a
// transform of a uniform variable on [0, 1): what a design can stratify.
type Model struct {
	Name  string
	Dim   int
	Count func(u []float64) uint64
	Mean  float64 // exact
	Eps   float64
	// World is the same count drawn trial by trial, when the laboratory has it: its
	// oracle, whether it is rare, and its exact P(count ≠ x).
	World World
}

// world returns m.World, or a world that draws m's count from independent inputs.
func (m Model) world() World {
	if m.World.Draw != nil {
		return m.World
	}
	return World{Name: m.Name, Kind: "loop", Mean: m.Mean, Eps: m.Eps, Draw: func(rng *rand.Rand) uint64 {
		u := make([]float64, m.Dim)
		for j := range u {
			u[j] = rng.Float64()
		}
		return m.Count(u)
	}}
}

// A Design draws a unit of M trials' inputs at a time. Units are independent, so
// the stopping rule applies to the units' sums (whose variance the design reduces)
// exactly as to single trials ([stopping.Units]).
type Design struct {
	Name string
	M    int
	// Points fills the M×Dim matrix of uniform inputs of one unit.
	Points func(r *rand.Rand, pts *mat.Dense)
}

// Designs returns the designs compared: independent draws, antithetic pairs (u and
// 1 − u), 16 scrambled Halton points (A. B. Owen, "A randomized Halton algorithm
// in R", arXiv:1706.02808, 2017; gonum samplemv.Halton) and Latin hypercube samples
// of 16 (M. D. McKay, R. J. Beckman and W. J. Conover, Technometrics 21(2), 1979;
// gonum samplemv.LatinHypercube), freq's default, last. The Go module lists
// searchable here hold no package of scrambled Sobol points; the randomised Halton
// sequence plays their part.
func Designs() []Design {
	return []Design{
		{"independent", 1, func(r *rand.Rand, p *mat.Dense) {
			for j := range p.RawMatrix().Cols {
				p.Set(0, j, r.Float64())
			}
		}},
		{"antithetic", 2, func(r *rand.Rand, p *mat.Dense) {
			for j := range p.RawMatrix().Cols {
				u := r.Float64()
				p.Set(0, j, u)
				p.Set(1, j, 1-u)
			}
		}},
		{"scrambled Halton 16", 16, func(r *rand.Rand, p *mat.Dense) {
			samplemv.Halton{Kind: samplemv.Owen, Q: unitCube{}, Src: r}.Sample(p)
		}},
		{"latin hypercube 16", 16, func(r *rand.Rand, p *mat.Dense) {
			_, d := p.Dims()
			samplemv.LatinHypercube{Q: distmv.NewUnitUniform(d, nil), Src: r}.Sample(p)
		}},
	}
}

// unitCube is the uniform distribution on [0, 1)^d as the quantile function Halton
// points go through, keeping them inside [0, 1): gonum v0.17's Owen scrambling sums
// a point's digits in floating point and now and then reaches 1, which
// distmv.Uniform refuses with a panic ("distmv: quantile not between 0 and 1").
type unitCube struct{}

func (unitCube) Quantile(x, p []float64) []float64 {
	for i, v := range p {
		x[i] = min(max(v, 0), 1-0x1p-53)
	}
	return x
}

// newtonIterations replays the loop of examples/newton.c's nsqrt in float64.
func newtonIterations(a float64) uint64 {
	x := a
	var n uint64
	for {
		prev := x
		x = 0.5 * (x + a/x)
		n++
		if !(prev-x > 1e-6 || x-prev > 1e-6) {
			return n
		}
	}
}

// Models returns the laboratory's models for the designs: Newton's loop (at two
// precisions), every closed-form world (Closed) as a function of one stratified
// input, the nested loops as a function of two, and a count the stratified input
// does not explain.
func Models() []Model {
	// Newton's loop count is piecewise constant in ask: its mean over a fine grid
	// of 10⁶ midpoints is exact to about 10⁻⁵.
	var s uint64
	const grid = 1_000_000
	for i := range grid {
		s += newtonIterations(100 + 700*(float64(i)+0.5)/grid)
	}
	newton := func(u []float64) uint64 { return newtonIterations(100 + 700*u[0]) }
	ms := []Model{
		{Name: "newton loop, ask ~ U(100, 800)", Dim: 1, Count: newton, Mean: float64(s) / grid, Eps: 0.02},
		{Name: "newton loop, eps 0.3", Dim: 1, Count: newton, Mean: float64(s) / grid, Eps: 0.3},
	}
	for _, w := range Closed() {
		switch {
		case w.Quantile != nil:
			q := w.Quantile
			ms = append(ms, Model{Name: w.Name, Dim: 1, Count: func(u []float64) uint64 { return q(u[0]) }, Mean: w.Mean, Eps: w.Eps, World: w})
		case strings.HasPrefix(w.Name, "nested"):
			ms = append(ms, Model{Name: w.Name, Dim: 2, Count: func(u []float64) uint64 {
				return (1 + uint64(10*u[0])) * (1 + uint64(20*u[1]))
			}, Mean: w.Mean, Eps: w.Eps, World: w})
		}
	}
	// A count the stratified input does not explain (an array's contents, say): the
	// fractional part of 10⁶·u is uniform whatever u's stratum, so the design gains
	// nothing, and its two ways to converge may only cost coverage.
	geo := Geometric("geometric loop p=0.2, unstratified", 0.2, 0.3)
	return append(ms, Model{Name: geo.Name, Dim: 1, Count: func(u []float64) uint64 {
		_, f := math.Modf(1e6 * u[0])
		return geo.Quantile(f)
	}, Mean: geo.Mean, Eps: geo.Eps, World: geo})
}

// DesignResult is one (design, model) cell: the coverage and the mean trials of
// the procedure freq runs under the design.
type DesignResult struct {
	Design, Model string
	Result
	Trials float64 // mean trials
}

// RunDesign replicates, on model m under design g, the procedure freq runs with
// --design: units of g.M trials drawn together, each trial's count folded, each
// unit's sum folded when the unit ends, and at the check points of
// [stopping.NextCheck] blocks judged by [stopping.Units] (by the rule alone for
// independent draws).
func RunDesign(rule string, g Design, m Model, gamma float64, c Config) (DesignResult, error) {
	r, c, err := c.rule(rule, m.Eps, gamma)
	if err != nil {
		return DesignResult{}, err
	}
	var judge *stopping.Units
	if g.M > 1 {
		if judge, err = stopping.NewUnits(r, uint64(g.M)); err != nil {
			return DesignResult{}, err
		}
	}
	w := m.world()
	w.Name, w.Eps = m.Name, m.Eps
	res := c.replicate(rule, w, gamma, func(rng *rand.Rand) stats.Decision {
		return replicateDesign(r, judge, g, m, rng, c.MaxTrials)
	})
	return DesignResult{Design: g.Name, Model: m.Name, Result: res, Trials: res.MeanTrials}, nil
}

// replicateDesign runs the procedure of RunDesign once and returns its last
// decision.
func replicateDesign(r stopping.Rule, judge *stopping.Units, g Design, m Model, rng *rand.Rand, budget uint64) stats.Decision {
	var trials, units stats.CountDist
	pts := mat.NewDense(g.M, m.Dim, nil)
	next := uint64(1)
	var sum uint64
	for n := uint64(1); ; n++ {
		k := int((n - 1) % uint64(g.M))
		if k == 0 {
			pts.Zero() // samplemv.Halton adds its digits to what the matrix holds
			g.Points(rng, pts)
		}
		x := m.Count(pts.RawRowView(k))
		trials.Add(x)
		if sum += x; k == g.M-1 {
			units.Add(sum)
			sum = 0
		}
		if n < next && n < budget {
			continue
		}
		var d stats.Decision
		if judge == nil {
			d = r.Decide(trials.Summary())
		} else {
			d = judge.Decide(trials.Summary(), units.Summary())
		}
		if d.State.Decided() || n >= budget {
			return d
		}
		next = stopping.NextCheck(n, r)
	}
}
