// This file tests every distribution's sample mean and variance against its
// exact values.

package dist

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestMoments(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 20000 // the tolerances scale with 1/√n
	}
	sq := func(x float64) float64 { return x * x }
	lognormal := func(mu, s float64) moments {
		v := (math.Exp(s*s) - 1) * math.Exp(2*mu+s*s)
		kurt := math.Exp(4*s*s) + 2*math.Exp(3*s*s) + 3*math.Exp(2*s*s) - 3
		return moments{math.Exp(mu + s*s/2), v, kurt * v * v}
	}
	binomial := func(nn, p float64) moments {
		v := nn * p * (1 - p)
		return moments{nn * p, v, v * (1 + 3*(nn-2)*p*(1-p))}
	}
	geometric := func(p float64) moments {
		q := 1 - p
		v := q / (p * p)
		return moments{q / p, v, v * v * (9 + p*p/q)}
	}
	uniformInt := func(a, b float64) moments {
		k := b - a + 1
		return moments{(a + b) / 2, (k*k - 1) / 12, (k*k - 1) * (3*k*k - 7) / 240}
	}
	finite := finiteMoments
	sizes := []float64{512, 1024, 1024, 2048, 4096, 512, 1024}
	for _, tc := range []struct {
		text string
		want moments
	}{
		// uniform(a, b): mean (a+b)/2, variance (b−a)²/12, μ4 = (b−a)⁴/80.
		{"x = uniform(2, 5)", moments{3.5, 0.75, 81.0 / 80}},
		{"x = uniform(-1e6, 1e6)", moments{0, sq(2e6) / 12, math.Pow(2e6, 4) / 80}},
		// uniform_int(a, b), k = b−a+1 values: variance (k²−1)/12,
		// μ4 = (k²−1)(3k²−7)/240.
		{"x = uniform_int(1, 100)", uniformInt(1, 100)},
		{"x = uniform_int(-3, 3)", uniformInt(-3, 3)},
		// normal: μ4 = 3σ⁴.
		{"x = normal(3, 2)", moments{3, 4, 48}},
		// lognormal(μ, σ): mean e^(μ+σ²/2), variance (e^σ² − 1)e^(2μ+σ²),
		// kurtosis e^4σ² + 2e^3σ² + 3e^2σ² − 3.
		{"x = lognormal(0.5, 0.4)", lognormal(0.5, 0.4)},
		// exponential(λ): 1/λ, 1/λ², μ4 = 9/λ⁴.
		{"x = exponential(2)", moments{0.5, 0.25, 9.0 / 16}},
		// poisson(λ): λ, λ, μ4 = λ(1+3λ); λ < 10 and λ ≥ 10 take
		// different branches in gonum.
		{"x = poisson(4)", moments{4, 4, 4 * 13}},
		{"x = poisson(30)", moments{30, 30, 30 * 91}},
		// binomial(n, p): np, npq, μ4 = npq(1 + 3(n−2)pq); n < 25 and
		// n ≥ 25 take different branches in gonum.
		{"x = binomial(20, 0.3)", binomial(20, 0.3)},
		{"x = binomial(1000, 0.7)", binomial(1000, 0.7)},
		// bernoulli(p): p, pq, μ4 = pq(1 − 3pq).
		{"x = bernoulli(0.3)", moments{0.3, 0.21, 0.21 * (1 - 3*0.21)}},
		// geometric(p), failures before the first success: q/p, q/p²,
		// kurtosis 9 + p²/q.
		{"x = geometric(0.25)", geometric(0.25)},
		{"x = geometric(0.9)", geometric(0.9)},
		{"x = choice(1, 2, 10; 1, 2, 7)", finite([]float64{1, 2, 10}, []float64{0.1, 0.2, 0.7})},
		{"x = choice(-1.5, 0.5, 4)", finite([]float64{-1.5, 0.5, 4}, []float64{1, 1, 1})},
		{"x = const(7)", moments{7, 0, 0}},
		{"x = 2.5", moments{2.5, 0, 0}},
		{"x = binomial(10, 1)", moments{10, 0, 0}},
		{`x = empirical("sizes.txt")`, finite(sizes, []float64{1, 1, 1, 1, 1, 1, 1})},
		// array elements are independent draws of the element distribution.
		{"x = array(100, normal(-1, 0.5))", moments{-1, 0.25, 3 * math.Pow(0.5, 4)}},
		{"x = array(n, exponential(1))\nn = uniform_int(0, 20)", moments{1, 1, 9}},
		// string characters are uniform over the alphabet's bytes.
		{`x = string(50, "abd")`, finite([]float64{'a', 'b', 'd'}, []float64{1, 1, 1})},
	} {
		// Latin hypercube units keep every trial's distribution (latin.go), and
		// the tolerances, made for independent draws, hold all the more for
		// stratified ones (their mean varies less: McKay et al. 1979).
		for _, unit := range []int{0, 16} {
			name := tc.text
			if unit > 0 {
				name += fmt.Sprintf(" (latin %d)", unit)
			}
			t.Run(name, func(t *testing.T) {
				xs := drawUnits(t, tc.text, 1, n/10, unit)
				if len(xs) < n {
					xs = append(xs, drawUnits(t, tc.text, 2, n-n/10, unit)...)
				}
				checkMoments(t, name, xs, tc.want)
			})
		}
	}
}

// TestMomentsGonum checks a few exact moments above against gonum's, so
// that the formulas in TestMoments are not wrong in the same way as a
// sampler might be.
func TestMomentsGonum(t *testing.T) {
	ln := distuv.LogNormal{Mu: 0.5, Sigma: 0.4}
	if v := (math.Exp(0.16) - 1) * math.Exp(1+0.16); math.Abs(v-ln.Variance()) > 1e-12 {
		t.Errorf("lognormal variance %g, gonum %g", v, ln.Variance())
	}
	b := distuv.Binomial{N: 20, P: 0.3}
	if k := (1 - 6*0.21) / (20 * 0.21); math.Abs(k-b.ExKurtosis()) > 1e-12 {
		t.Errorf("binomial excess kurtosis %g, gonum %g", k, b.ExKurtosis())
	}
}
