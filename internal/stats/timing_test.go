package stats

import (
	"math"
	"strings"
	"testing"
)

// normalTimes returns n times 100 + 2·Φ⁻¹((i − ½)/n), a sample shaped exactly like
// the normal, in a scrambled order; its mean is 100 (the quantiles are symmetric).
func normalTimes(n int) []float64 {
	xs := make([]float64, n)
	for i := range n {
		xs[(i*37)%n] = 100 + 2*NormalQuantile((float64(i)+0.5)/float64(n))
	}
	return xs
}

func TestSummarizeTimesNormal(t *testing.T) {
	// A slow first repetition, 200 normal-shaped times, and three preemptions.
	xs := append([]float64{1000}, normalTimes(200)...)
	xs = append(xs[:50], append([]float64{500, 800}, xs[50:]...)...)
	xs = append(xs, 1200)
	s := SummarizeTimes(xs, DefaultTimingOptions)
	if len(s.Warmup) != 1 || s.Warmup[0] != 1000 {
		t.Errorf("Warmup = %v, want [1000]", s.Warmup)
	}
	if s.N != 200 || len(s.Tail.Cut) != 3 || s.Tail.Cut[0] != 500 || s.Tail.Cut[2] != 1200 {
		t.Errorf("kept %d, cut %v; want 200 kept, [500 800 1200] cut", s.N, s.Tail.Cut)
	}
	if !closeRel(s.Mean, 100, 1e-14, 0) || !closeRel(s.Median.Center, 100, 1e-14, 0) {
		t.Errorf("mean %v, median %v, want 100", s.Mean, s.Median.Center)
	}
	if !s.Normal || s.Normality.Test != "Shapiro-Wilk" || s.Normality.N != 200 || s.Normality.P < 0.99 {
		t.Errorf("normality %+v, want normal with p ≈ 1", s.Normality)
	}
	// Normal: x̄ ± u·s/√N (N = 200 ≥ 30: the normal quantile).
	if h := 1.95996398454005 * s.StdDev / math.Sqrt(200); !closeRel(s.Interval.HalfWidth(), h, 1e-12, 0) || len(s.Interval.Warnings) != 0 {
		t.Errorf("interval %+v, want half-width %v and no warnings", s.Interval, h)
	}
	if !closeRel(s.StdErr, s.StdDev/math.Sqrt(200), 1e-15, 0) || s.Min >= 96 || s.Max <= 104 {
		t.Errorf("StdErr %v, Min %v, Max %v", s.StdErr, s.Min, s.Max)
	}
	if len(s.Histogram.Counts) != SturgesBins(200) || s.Histogram.Edges[0] != s.Min || s.Histogram.Edges[8] != s.Max {
		t.Errorf("histogram %+v, want 8 bins from min to max", s.Histogram)
	}
	if !s.Median.Contains(100) || s.Median.Confidence < 0.95 {
		t.Errorf("median interval %+v", s.Median)
	}
}

func TestSummarizeTimesNotNormal(t *testing.T) {
	// Exponential-shaped times 100 + 10·(−ln(1 − (i − ½)/n)), n = 100, with a
	// warm-up of 0 and no tail cut: clearly not normal (W ≈ 0.9), so the half-width is
	// the guide's max(t_max − x̄, x̄ − t_min).
	n := 100
	xs := make([]float64, n)
	for i := range n {
		xs[(i*37)%n] = 100 - 10*math.Log(1-(float64(i)+0.5)/float64(n))
	}
	s := SummarizeTimes(xs, TimingOptions{Warmup: 0, TailK: -1, Confidence: 0.95, Alpha: 0.05})
	if s.N != n || len(s.Tail.Cut) != 0 || s.Normal || s.Normality.P >= 0.001 {
		t.Fatalf("N %d, cut %d, normality %+v", s.N, len(s.Tail.Cut), s.Normality)
	}
	if h := RangeHalfWidth(s.Mean, s.Min, s.Max); s.Interval.HalfWidth() != h || h != s.Max-s.Mean {
		t.Errorf("half-width %v, want the range rule %v = t_max − x̄", s.Interval.HalfWidth(), h)
	}
	if len(s.Interval.Warnings) != 1 || !strings.Contains(s.Interval.Warnings[0].Error(), "not normal") {
		t.Errorf("warnings %v", s.Interval.Warnings)
	}
}

func TestSummarizeTimesEdges(t *testing.T) {
	// Two samples: no normality test; the range rule with a warning that N < 29.
	s := SummarizeTimes([]float64{5, 1, 3}, DefaultTimingOptions)
	if s.N != 2 || s.Normality.Err == nil || s.Normal || s.Interval.HalfWidth() != 1 || len(s.Interval.Warnings) != 2 {
		t.Errorf("two samples: %+v", s)
	}
	// More than 5000: tested on an evenly spaced subsample, with a warning.
	s = SummarizeTimes(normalTimes(6001), DefaultTimingOptions)
	if s.Normality.N != 5000 || !s.Normal || len(s.Interval.Warnings) != 1 {
		t.Errorf("6000 samples: normality %+v, warnings %v", s.Normality, s.Interval.Warnings)
	}
	// Nothing at all.
	s = SummarizeTimes(nil, DefaultTimingOptions)
	if s.N != 0 || !math.IsNaN(s.Mean) || s.Normal {
		t.Errorf("no samples: %+v", s)
	}
}
