// This file implements the first steps of the timing protocol: dropping warm-up
// repetitions and cutting the preemption tail.

package stats

import (
	"math"
	"slices"
)

// DropWarmup returns xs without its first k values, the warm-up repetitions that run
// with cold caches (the timing guide: "the first iteration is slower: drop the first
// sample"). It returns an empty slice when k ≥ len(xs) and xs when k ≤ 0.
func DropWarmup(xs []float64, k int) []float64 {
	k = min(max(k, 0), len(xs))
	return xs[k:]
}

// MADScale is 1/Φ⁻¹(3/4) ≈ 1.4826: the factor that makes the median absolute
// deviation a consistent estimator of σ for normal data (Rousseeuw & Croux,
// "Alternatives to the median absolute deviation", JASA 88(424), 1993).
const MADScale = 1.482602218505602

// DefaultTailK is the default k of [CutTail]: a time more than 3.5 robust standard
// deviations above the median is cut. 3.5 is the cut-off that Iglewicz & Hoaglin
// recommend for the modified z-score 0.6745·(x − median)/MAD ("How to Detect and
// Handle Outliers", ASQC, 1993); for normal data it cuts about 0.023 % of the samples.
const DefaultTailK = 3.5

// TailCut is the outcome of [CutTail]: the kept and the cut samples, each in input
// order, and the rule's numbers.
type TailCut struct {
	Kept []float64
	Cut  []float64
	// Median is the median of the input; Scale the robust estimate of σ; Threshold
	// = Median + k·Scale, the largest value kept.
	Median    float64
	Scale     float64
	Threshold float64
}

// CutTail removes the right tail that preemption adds to measured times (the timing guide:
// "compute only from values below a threshold"). The rule is one-sided and robust:
// with m the median and MAD = median |x − m|, a sample is cut when
//
//	x > m + k·1.4826·MAD.
//
// When MAD = 0 (more than half of the times are equal, as with a coarse timer) the
// scale falls back to √(π/2)·mean|x − m| (consistent for the normal, since
// E|X − μ| = σ√(2/π)); when that is 0 too all times are equal and nothing is cut. A
// negative or zero k is treated as [DefaultTailK]; to cut nothing, do not call
// CutTail. The input is not modified.
func CutTail(xs []float64, k float64) TailCut {
	if !(k > 0) {
		k = DefaultTailK
	}
	c := TailCut{Median: math.NaN(), Scale: math.NaN(), Threshold: math.NaN()}
	if len(xs) == 0 {
		return c
	}
	c.Median = Median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - c.Median)
	}
	c.Scale = MADScale * Median(dev)
	if c.Scale == 0 {
		var sum float64
		for _, d := range dev {
			sum += d
		}
		c.Scale = math.Sqrt(math.Pi/2) * sum / float64(len(dev))
	}
	c.Threshold = c.Median + k*c.Scale
	for _, x := range xs {
		if x > c.Threshold {
			c.Cut = append(c.Cut, x)
		} else {
			c.Kept = append(c.Kept, x)
		}
	}
	return c
}

// Median returns the sample median of xs (the mean of the two middle values when
// len(xs) is even), or NaN for no values. The input is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedMedian(s)
}

// sortedMedian returns the median of sorted, non-empty s.
func sortedMedian(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1] + (s[n/2]-s[n/2-1])/2
}

// RangeHalfWidth returns the timing guide's half-width for data that are not normal,
// Δt = max(t_max − t̃, t̃ − t_min) (the timing guide, after RTM 25 139-74), for the mean t̃
// and the extremes t_min, t_max of the samples.
func RangeHalfWidth(mean, lo, hi float64) float64 { return max(hi-mean, mean-lo) }

// MeanSD returns the mean of xs and their population standard deviation,
// √(Σ(x − x̄)²/n) (divisor n, not n − 1), both NaN for no values.
func MeanSD(xs []float64) (mean, sd float64) {
	for _, v := range xs {
		mean += v
	}
	mean /= float64(len(xs))
	var s float64
	for _, v := range xs {
		s += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(s / float64(len(xs)))
}
