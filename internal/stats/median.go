// This file implements the distribution-free confidence interval of the median.

package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MedianInterval returns the sample median of xs and its distribution-free confidence
// interval from order statistics. The number B of samples below the population median
// is Binomial(n, 1/2) for any continuous distribution, so with x₍₁₎ ≤ … ≤ x₍ₙ₎
//
//	P(x₍ₗ₎ ≤ median ≤ x₍ₙ₊₁₋ₗ₎) = P(l ≤ B ≤ n − l) = 1 − 2·F(l − 1),
//
// F the Binomial(n, 1/2) distribution function (Conover, "Practical Nonparametric
// Statistics", 3rd ed., 1999, §3.2). MedianInterval takes the largest l whose coverage
// is at least the confidence asked for, and reports that coverage, which is usually
// above it (the binomial is discrete). When even [x₍₁₎, x₍ₙ₎] falls short
// (n ≤ 5 at 95 %), it returns that interval with the coverage it reaches,
// 1 − 2^(1−n), and a warning. The input is not modified.
func MedianInterval(xs []float64, confidence float64) Interval {
	n := len(xs)
	if n == 0 {
		return Interval{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: 0,
			Warnings: []error{fmt.Errorf("no samples")}}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	alpha := 1 - confidence
	bin := distuv.Binomial{N: float64(n), P: 0.5}
	tail := func(l int) float64 { return 2 * bin.CDF(float64(l-1)) } // 1 − coverage of [x₍ₗ₎, x₍ₙ₊₁₋ₗ₎]

	// Start near the normal approximation l ≈ n/2 − u·√n/2 and walk to the exact l.
	l := int(math.Floor(float64(n)/2 - NormalCoefficient(confidence)*math.Sqrt(float64(n))/2))
	l = min(max(l, 1), (n+1)/2)
	for l > 1 && tail(l) > alpha {
		l--
	}
	for l+1 <= (n+1)/2 && tail(l+1) <= alpha {
		l++
	}
	iv := Interval{Center: sortedMedian(s), Lo: s[l-1], Hi: s[n-l], Confidence: 1 - tail(l)}
	if iv.Confidence < confidence {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%d samples: the median's interval reaches only %.4g confidence, not %.4g", n, iv.Confidence, confidence))
	}
	return iv
}
