// This file tests ranges, "in [lo, hi]": every draw inside, and the
// moments of the restricted distribution.

package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// truncNormal returns the exact mean and variance of normal(mu, sigma)
// restricted to [a, b]: with α = (a−μ)/σ, β = (b−μ)/σ, Z = Φ(β) − Φ(α),
//
//	mean     = μ + σ(φ(α) − φ(β))/Z
//	variance = σ²[1 + (αφ(α) − βφ(β))/Z − ((φ(α) − φ(β))/Z)²]
//
// (Johnson, Kotz and Balakrishnan, Continuous Univariate Distributions,
// vol. 1, §10.1), and μ4 by numerical integration.
func truncNormal(mu, sigma, a, b float64) moments {
	std := distuv.UnitNormal
	al, be := (a-mu)/sigma, (b-mu)/sigma
	z := std.CDF(be) - std.CDF(al)
	pa, pb := std.Prob(al), std.Prob(be)
	// x·φ(x) → 0 at ±∞.
	apa, bpb := al*pa, be*pb
	if math.IsInf(al, 0) {
		apa = 0
	}
	if math.IsInf(be, 0) {
		bpb = 0
	}
	mean := mu + sigma*(pa-pb)/z
	variance := sigma * sigma * (1 + (apa-bpb)/z - (pa-pb)*(pa-pb)/(z*z))
	lo, hi := math.Max(a, mu-12*sigma), math.Min(b, mu+12*sigma)
	m := continuousMoments(distuv.Normal{Mu: mu, Sigma: sigma}.Prob, lo, hi)
	return moments{mean, variance, m.mu4}
}

func TestRange(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 20000 // the tolerances scale with 1/√n
	}
	inf := math.Inf(1)
	pois := func(l float64) func(float64) float64 { return distuv.Poisson{Lambda: l}.Prob }
	binom := func(nn, p float64) func(float64) float64 { return distuv.Binomial{N: nn, P: p}.Prob }
	geom := func(p float64) func(float64) float64 {
		return func(k float64) float64 { return math.Pow(1-p, k) * p }
	}
	for _, tc := range []struct {
		text   string
		lo, hi float64 // bounds every draw must respect
		want   moments
	}{
		// Uniform restricted to [lo, hi] inside (a, b): uniform(lo, hi),
		// mean (lo+hi)/2, variance (hi−lo)²/12.
		{"x = uniform(0, 10) in [2, 3]", 2, 3, moments{2.5, 1.0 / 12, 1.0 / 80}},
		{"x = uniform(0, 10) in [-5, 1]", 0, 1, moments{0.5, 1.0 / 12, 1.0 / 80}},
		// Truncated normal, both sides, the upper tail (drawn reflected),
		// a far tail (P ≈ 1.3e-3) and one side open.
		{"x = normal(0, 1) in [-1, 2]", -1, 2, truncNormal(0, 1, -1, 2)},
		{"x = normal(10, 2) in [13, 20]", 13, 20, truncNormal(10, 2, 13, 20)},
		{"x = normal(0, 1) in [3, inf]", 3, inf, truncNormal(0, 1, 3, inf)},
		{"x = normal(0, 1) in [-inf, -4]", -inf, -4, truncNormal(0, 1, -inf, -4)},
		{"x = normal(5, 3) in [0, inf]", 0, inf, truncNormal(5, 3, 0, inf)},
		// Lognormal and exponential against numerical integration.
		{"x = lognormal(0, 0.5) in [1, 2]", 1, 2, continuousMoments(distuv.LogNormal{Mu: 0, Sigma: 0.5}.Prob, 1, 2)},
		{"x = lognormal(0, 0.5) in [3, 10]", 3, 10, continuousMoments(distuv.LogNormal{Mu: 0, Sigma: 0.5}.Prob, 3, 10)},
		{"x = exponential(0.5) in [1, 4]", 1, 4, continuousMoments(distuv.Exponential{Rate: 0.5}.Prob, 1, 4)},
		{"x = exponential(2) in [3, inf]", 3, inf, continuousMoments(distuv.Exponential{Rate: 2}.Prob, 3, 30)},
		// Integer distributions against exact sums of the pmf. Poisson and
		// binomial take rejection when the range is likely (mass ≥ 0.05)
		// and inversion of the CDF otherwise, in the lower and the upper
		// tail.
		{"x = poisson(4) in [2, 6]", 2, 6, discreteMoments(pois(4), 2, 6)},
		{"x = poisson(4) in [12, inf]", 12, inf, discreteMoments(pois(4), 12, 200)},
		{"x = poisson(50) in [0, 30]", 0, 30, discreteMoments(pois(50), 0, 30)},
		{"x = poisson(1e4) in [10100, 10200.5]", 10100, 10200, discreteMoments(pois(1e4), 10100, 10200)},
		{"x = binomial(30, 0.4) in [10, 14]", 10, 14, discreteMoments(binom(30, 0.4), 10, 14)},
		{"x = binomial(30, 0.4) in [18, 30]", 18, 30, discreteMoments(binom(30, 0.4), 18, 30)},
		{"x = binomial(1000, 0.5) in [0, 470]", 0, 470, discreteMoments(binom(1000, 0.5), 0, 470)},
		{"x = geometric(0.3) in [2, 5]", 2, 5, discreteMoments(geom(0.3), 2, 5)},
		{"x = geometric(0.3) in [4, inf]", 4, inf, discreteMoments(geom(0.3), 4, 400)},
		// The trial-count convention, 1 + geometric(p) (docs/inputs.md):
		// mean 1 + q/p, variance q/p².
		{"x = geometric(0.25) in [1, inf]", 1, inf, discreteMoments(func(k float64) float64 { return geom(0.25)(k - 1) }, 1, 600)},
		{"x = uniform_int(1, 100) in [10.5, 20]", 11, 20, moments{15.5, 99.0 / 12, 99.0 * 293 / 240}},
		{"x = choice(1, 2, 3, 4) in [2, 4]", 2, 4, moments{3, 2.0 / 3, 2.0 / 3}},
		{"x = choice(1, 2, 3, 4; 4, 3, 2, 1) in [2, 3]", 2, 3, finiteMoments([]float64{2, 3}, []float64{3, 2})},
		{"x = bernoulli(0.3) in [0.5, 7]", 1, 1, moments{1, 0, 0}},
		{"x = const(5) in [0, 10]", 5, 5, moments{5, 0, 0}},
		{`x = empirical("sizes.txt") in [1000, 2048]`, 1024, 2048, finiteMoments([]float64{1024, 2048}, []float64{3, 1})},
		// A restricted element distribution inside an array.
		{"x = array(10, normal(0, 1) in [0, 1])", 0, 1, truncNormal(0, 1, 0, 1)},
	} {
		t.Run(tc.text, func(t *testing.T) {
			xs := drawN(t, tc.text, 3, n)
			checkBounds(t, tc.text, xs, tc.lo, tc.hi)
			checkMoments(t, tc.text, xs, tc.want)
		})
	}
}

// TestRangeDiscreteInversion checks the inversion path of restricted
// poisson and binomial on ranges where Draw takes rejection.
func TestRangeDiscreteInversion(t *testing.T) {
	for _, tc := range []struct {
		text   string
		lo, hi float64
		pmf    func(float64) float64
	}{
		{"x = poisson(4) in [2, 6]", 2, 6, distuv.Poisson{Lambda: 4}.Prob},
		{"x = poisson(4) in [3, inf]", 3, 100, distuv.Poisson{Lambda: 4}.Prob},
		{"x = binomial(30, 0.4) in [8, 16]", 8, 16, distuv.Binomial{N: 30, P: 0.4}.Prob},
	} {
		m := mustParse(t, tc.text)
		d := m.gens[0].(scalarGen).d.(*truncDiscrete)
		if d.tries == 0 {
			t.Fatalf("%s: mass %g, want a range that rejection samples", tc.text, d.mass)
		}
		s := m.NewSample()
		xs := make([]float64, 100000)
		for i := range xs {
			seedStream(&s.pcg, 9, uint64(i), 1)
			xs[i] = d.invert(s.rng)
		}
		checkBounds(t, tc.text, xs, tc.lo, tc.hi)
		checkMoments(t, tc.text+" by inversion", xs, discreteMoments(tc.pmf, tc.lo, tc.hi))
	}
}
