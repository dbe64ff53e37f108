// This file implements the variance-reduction designs of the laboratory: antithetic
// pairs, Latin hypercube samples and randomised quasi-Monte Carlo (scrambled Halton
// points), measured against independent draws.

package lab

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
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
}

// A Design draws a unit of M trials' inputs at a time. Units are independent, so
// the stopping rule applies to the units' sums (whose variance the design reduces)
// exactly as to single trials; a design costs M trials per unit.
type Design struct {
	Name string
	M    int
	// Points fills the M×Dim matrix of uniform inputs of one unit.
	Points func(r *rand.Rand, pts *mat.Dense)
}

// Designs returns the designs compared: independent draws, antithetic pairs (u and
// 1 − u), Latin hypercube samples of 16 (M. D. McKay, R. J. Beckman and W. J.
// Conover, Technometrics 21(2), 1979; gonum samplemv.LatinHypercube) and 16
// scrambled Halton points (A. B. Owen, "A randomized Halton algorithm in R",
// arXiv:1706.02808, 2017; gonum samplemv.Halton). The Go module lists searchable
// here hold no package of scrambled Sobol points; the randomised Halton sequence
// plays their part.
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
		{"latin hypercube 16", 16, func(r *rand.Rand, p *mat.Dense) {
			_, d := p.Dims()
			samplemv.LatinHypercube{Q: distmv.NewUnitUniform(d, nil), Src: r}.Sample(p)
		}},
		{"scrambled Halton 16", 16, func(r *rand.Rand, p *mat.Dense) {
			_, d := p.Dims()
			samplemv.Halton{Kind: samplemv.Owen, Q: distmv.NewUnitUniform(d, nil), Src: r}.Sample(p)
		}},
	}
}

// World returns the world whose trials are the design's units on model m: a unit's
// count is the sum of its M counts, its mean M·m.Mean and its precision M·m.Eps.
func (g Design) World(m Model) World {
	return World{Name: m.Name + " / " + g.Name, Kind: "design", Mean: float64(g.M) * m.Mean, Eps: float64(g.M) * m.Eps,
		Draw: func(r *rand.Rand) uint64 {
			pts := mat.NewDense(g.M, m.Dim, nil)
			g.Points(r, pts)
			var s uint64
			for i := range g.M {
				s += m.Count(pts.RawRowView(i))
			}
			return s
		}}
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

// Models returns the laboratory's models for the designs.
func Models() []Model {
	// Newton's loop count is piecewise constant in ask: its mean over a fine grid
	// of 10⁶ midpoints is exact to about 10⁻⁵.
	var s uint64
	const grid = 1_000_000
	for i := range grid {
		s += newtonIterations(100 + 700*(float64(i)+0.5)/grid)
	}
	ln := LogNormal("", 2, 1, 1)
	return []Model{
		{"newton loop, ask ~ U(100, 800)", 1, func(u []float64) uint64 { return newtonIterations(100 + 700*u[0]) }, float64(s) / grid, 0.02},
		{"uniform loop 1..100", 1, func(u []float64) uint64 { return 1 + uint64(100*u[0]) }, 50.5, 2},
		{"nested loops 10x20", 2, func(u []float64) uint64 { return (1 + uint64(10*u[0])) * (1 + uint64(20*u[1])) }, 57.75, 2},
		{"branch p=0.3", 1, func(u []float64) uint64 {
			if u[0] < 0.3 {
				return 1
			}
			return 0
		}, 0.3, 0.03},
		{"geometric loop p=0.2", 1, func(u []float64) uint64 { return uint64(math.Floor(math.Log1p(-u[0]) / math.Log(0.8))) }, 4, 0.3},
		{"log-normal trip s=1", 1, func(u []float64) uint64 {
			return uint64(math.Floor(math.Exp(2 + math.Sqrt2*math.Erfinv(2*u[0]-1))))
		}, ln.Mean, 1},
	}
}

// DesignResult is one (design, model) cell: the rule's coverage and trials (units ×
// M) under the design.
type DesignResult struct {
	Design, Model string
	Result
	Trials float64 // mean trials: units × M
}

// RunDesign replicates the rule on model m under design g.
func RunDesign(rule string, g Design, m Model, gamma float64, c Config) (DesignResult, error) {
	res, err := Run(rule, g.World(m), gamma, c)
	if err != nil {
		return DesignResult{}, fmt.Errorf("%s / %s: %w", m.Name, g.Name, err)
	}
	return DesignResult{Design: g.Name, Model: m.Name, Result: res, Trials: res.MeanTrials * float64(g.M)}, nil
}
