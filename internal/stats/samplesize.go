// This file implements the timing guide's sample-size formula for a mean and its
// inverse.

package stats

import "math"

// SampleSizeMean returns the number of measurements that estimate a mean to relative
// error ε₀ at the given confidence, from a pilot's mean m' and standard deviation σ'
// (the timing guide, "Sample size", with its missing square restored):
//
//	N ≥ k²·σ'² / (ε₀²·m'²),  k = u_{(1+P)/2},
//
// rounded up; +Inf when m' = 0.
func SampleSizeMean(confidence, mean, sd, relErr float64) float64 {
	k := NormalCoefficient(confidence)
	return math.Ceil(k * k * sd * sd / (relErr * relErr * mean * mean))
}

// RelErrMean inverts [SampleSizeMean]: the relative error ε₀ = k·σ'/(|m'|·√N) that N
// measurements reach at the given confidence.
func RelErrMean(confidence, mean, sd float64, n int) float64 {
	return NormalCoefficient(confidence) * sd / (math.Abs(mean) * math.Sqrt(float64(n)))
}
