// This file implements the coverage coefficients: normal and Student quantiles and
// the timing guide's rule for choosing between them.

package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// StudentFrom is the sample size from which [Coefficient] uses the normal quantile
// instead of Student's t: below 30 samples t, from 30 on the normal quantile, as in
// the timing guide (docs/methods.md; after GOST 8.207-76, which puts the switch between 29
// and 30).
const StudentFrom = 30

// NormalQuantile returns u_p = Φ⁻¹(p), the quantile of order p of the standard normal
// distribution (gonum distuv.UnitNormal).
func NormalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// NormalCDF returns Φ(x), the standard normal distribution function.
func NormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// StudentQuantile returns t_{p,ν}, the quantile of order p of Student's t
// distribution with ν degrees of freedom (gonum distuv.StudentsT).
func StudentQuantile(p, nu float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(p)
}

// NormalCoefficient returns k = u_{(1+P)/2}, the two-sided normal coefficient for
// confidence P: P(|Z| ≤ k) = P. The timing guide's table: 0.90 → 1.645, 0.95 → 1.96,
// 0.99 → 2.576, 0.997 → 2.968 (printed 3.00), 0.999 → 3.291.
func NormalCoefficient(confidence float64) float64 { return NormalQuantile((1 + confidence) / 2) }

// Coefficient returns the two-sided coverage coefficient k for the mean of n samples
// at the given confidence P, so that x̄ ± k·s/√n is the interval: Student's
// t_{(1+P)/2, n−1} when n < [StudentFrom], else the normal u_{(1+P)/2} (the timing
// guide, "Processing the measurements"). It is +Inf when n < 2.
func Coefficient(confidence float64, n int) float64 {
	switch {
	case n < 2:
		return math.Inf(1)
	case n < StudentFrom:
		return StudentQuantile((1+confidence)/2, float64(n-1))
	default:
		return NormalCoefficient(confidence)
	}
}
