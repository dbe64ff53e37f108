// This file implements the Shapiro–Wilk normality test (Royston's algorithm AS R94).

package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Limits of the Shapiro–Wilk approximation: Royston's polynomials were fitted for
// 3 ≤ n ≤ 5000.
const (
	ShapiroWilkMinN = 3
	ShapiroWilkMaxN = 5000
)

// ErrConstant is returned by [ShapiroWilk] when all values are equal.
var ErrConstant = errors.New("stats: all values are identical")

// Royston's polynomial coefficients (AS R94, Table 1 and §3), lowest order first.
var (
	swC1 = []float64{0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056}
	swC2 = []float64{0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633}
	swC3 = []float64{0.544, -0.39978, 0.025054, -6.714e-4}
	swC4 = []float64{1.3822, -0.77857, 0.062767, -0.0020322}
	swC5 = []float64{-1.5861, -0.31082, -0.083751, 0.0038915}
	swC6 = []float64{-0.4803, -0.082676, 0.0030302}
	swG  = []float64{-2.273, 0.459}
)

// poly returns c[0] + c[1]·x + … + c[len(c)−1]·x^(len(c)−1) by Horner's rule.
func poly(c []float64, x float64) float64 {
	var p float64
	for i := len(c) - 1; i >= 0; i-- {
		p = p*x + c[i]
	}
	return p
}

// ShapiroWilk tests xs for normality and returns the Shapiro–Wilk statistic W and
// its p-value (small p: not normal). It follows Royston's algorithm (P. Royston,
// "Approximating the Shapiro–Wilk W-test for non-normality", Statistics and
// Computing 2, 1992; "Remark AS R94: A remark on Algorithm AS 181: the W-test for
// normality", Applied Statistics 44(4), 1995), the algorithm of R's shapiro.test:
//
//   - coefficients: mᵢ = Φ⁻¹((i − 3/8)/(n + 1/4)), m = Σmᵢ²; with u = 1/√n the two
//     extreme coefficients are aₙ = −m₁/√m + poly(c1, u) and, for n > 5,
//     aₙ₋₁ = −m₂/√m + poly(c2, u); the others are −mᵢ/φ with φ chosen so that
//     Σaᵢ² = 1 (for n = 3, a = (−√½, 0, √½));
//   - W = (Σ aᵢ x₍ᵢ₎)² / Σ(xᵢ − x̄)², computed as the squared correlation of a and
//     the sorted data, via 1 − W to keep precision near 1;
//   - p-value: for n = 3 exactly, p = (6/π)(asin √W − asin √(3/4)); for
//     4 ≤ n ≤ 11, y = −log(γ − log(1 − W)) with γ = −2.273 + 0.459n (p ≈ 0 when
//     log(1 − W) ≥ γ), and y ~ N(poly(c3, n), exp(poly(c4, n))); for n ≥ 12,
//     y = log(1 − W) ~ N(poly(c5, log n), exp(poly(c6, log n))); p = P(Y > y).
//
// The p-value is accurate in the lower tail, where tests are decided; above about 0.5
// Royston's fit is coarser (for n = 12, about 14 % of null p-values exceed 0.9, in R
// as here).
//
// It returns an error for fewer than 3 or more than 5000 values (outside the range
// of the approximation), for non-finite values and, as [ErrConstant], when all
// values are equal. The input is not modified.
func ShapiroWilk(xs []float64) (w, p float64, err error) {
	n := len(xs)
	if n < ShapiroWilkMinN || n > ShapiroWilkMaxN {
		return math.NaN(), math.NaN(), fmt.Errorf("stats: Shapiro–Wilk needs %d to %d values, have %d", ShapiroWilkMinN, ShapiroWilkMaxN, n)
	}
	x := slices.Clone(xs)
	slices.Sort(x)
	if math.IsNaN(x[0]) || math.IsInf(x[0], 0) || math.IsInf(x[n-1], 0) {
		return math.NaN(), math.NaN(), fmt.Errorf("stats: Shapiro–Wilk needs finite values")
	}
	rng := x[n-1] - x[0]
	if rng == 0 {
		return math.NaN(), math.NaN(), ErrConstant
	}

	// Coefficients of the sorted data, antisymmetric: c[i] = −c[n−1−i].
	half := swHalfCoefficients(n)
	c := make([]float64, n)
	for i, a := range half {
		c[i], c[n-1-i] = -a, a
	}

	// W as the squared correlation of c with x/rng (R's formulation), through
	// 1 − W = (√(SaSx) − Sax)(√(SaSx) + Sax)/(SaSx).
	var ca, xa float64
	for i := range x {
		ca += c[i]
		xa += x[i] / rng
	}
	ca /= float64(n)
	xa /= float64(n)
	var ssa, ssx, sax float64
	for i := range x {
		dc, dx := c[i]-ca, x[i]/rng-xa
		ssa += dc * dc
		ssx += dx * dx
		sax += dc * dx
	}
	r := math.Sqrt(ssa * ssx)
	w1 := (r - sax) * (r + sax) / (ssa * ssx)
	w = 1 - w1
	return w, swPValue(n, w, w1), nil
}

// swHalfCoefficients returns a₁ … a_{⌊n/2⌋}, the positive Shapiro–Wilk coefficients
// of the largest values, largest first (Royston 1992).
func swHalfCoefficients(n int) []float64 {
	nn2 := n / 2
	a := make([]float64, nn2)
	if n == 3 {
		a[0] = math.Sqrt(0.5)
		return a
	}
	an25 := float64(n) + 0.25
	m := make([]float64, nn2) // mᵢ < 0: the lower half of the expected normal order statistics
	var summ2 float64
	for i := range m {
		m[i] = NormalQuantile((float64(i+1) - 0.375) / an25)
		summ2 += m[i] * m[i]
	}
	summ2 *= 2
	ssumm2 := math.Sqrt(summ2)
	rsn := 1 / math.Sqrt(float64(n))
	a1 := poly(swC1, rsn) - m[0]/ssumm2
	first := 1
	var fac float64
	if n > 5 {
		first = 2
		a2 := -m[1]/ssumm2 + poly(swC2, rsn)
		fac = math.Sqrt((summ2 - 2*m[0]*m[0] - 2*m[1]*m[1]) / (1 - 2*a1*a1 - 2*a2*a2))
		a[1] = a2
	} else {
		fac = math.Sqrt((summ2 - 2*m[0]*m[0]) / (1 - 2*a1*a1))
	}
	a[0] = a1
	for i := first; i < nn2; i++ {
		a[i] = -m[i] / fac
	}
	return a
}

// swPValue returns the p-value of W for n values (Royston 1992, 1995), given W and
// w1 = 1 − W computed without cancellation.
func swPValue(n int, w, w1 float64) float64 {
	if n == 3 {
		const sixOverPi = 6 / math.Pi
		p := sixOverPi * (math.Asin(math.Sqrt(w)) - math.Asin(math.Sqrt(0.75)))
		return min(max(p, 0), 1)
	}
	y := math.Log(w1)
	var mu, sigma float64
	if nf := float64(n); n <= 11 {
		gamma := poly(swG, nf)
		if y >= gamma {
			return 1e-99 // beyond the approximation's range: W is implausibly small
		}
		y = -math.Log(gamma - y)
		mu = poly(swC3, nf)
		sigma = math.Exp(poly(swC4, nf))
	} else {
		ln := math.Log(nf)
		mu = poly(swC5, ln)
		sigma = math.Exp(poly(swC6, ln))
	}
	return distuv.Normal{Mu: mu, Sigma: sigma}.Survival(y)
}
