// This file implements the timing guide's measurement protocol as one call.

package stats

import (
	"fmt"
	"math"
)

// TimingOptions are the tunables of [SummarizeTimes].
type TimingOptions struct {
	// Warmup is the number of leading repetitions dropped.
	Warmup int
	// TailK is the k of [CutTail]; 0 means [DefaultTailK]; a negative value cuts
	// nothing.
	TailK float64
	// Confidence is the confidence of the intervals, in (0, 1).
	Confidence float64
	// Alpha is the level of the normality test: the kept samples count as normal
	// when the Shapiro–Wilk p-value is at least Alpha.
	Alpha float64
}

// DefaultTimingOptions drop one warm-up repetition, cut beyond median + 3.5 robust
// standard deviations, and use 95 % confidence and a 5 % normality test.
var DefaultTimingOptions = TimingOptions{Warmup: 1, TailK: DefaultTailK, Confidence: 0.95, Alpha: 0.05}

// Normality is the outcome of the normality test on the kept samples.
type Normality struct {
	// Test names the test: "Shapiro-Wilk".
	Test string
	// N is the number of samples tested: all kept samples, or an evenly spaced
	// subsample of 5000 when there are more (the limit of the test).
	N int
	W float64
	P float64
	// Err says why the test could not run (too few samples, all equal); W and P are
	// then NaN.
	Err error
}

// TimingSummary is the outcome of [SummarizeTimes]. All times are in the unit of the
// input.
type TimingSummary struct {
	// Warmup holds the dropped leading repetitions; Tail the kept and cut samples.
	Warmup []float64
	Tail   TailCut
	// N is the number of kept samples; the figures below describe them.
	N                    int
	Mean, StdDev, StdErr float64
	Min, Max             float64
	Normality            Normality
	Normal               bool
	// Interval is the estimate of the mean time: x̄ ± k·s/√N ([MeanInterval]) when
	// the samples are normal, x̄ ± max(t_max − x̄, x̄ − t_min) ([RangeHalfWidth])
	// otherwise, as the timing guide prescribes.
	Interval Interval
	// Median is the median with its distribution-free interval ([MedianInterval]).
	Median Interval
	// Histogram has Sturges' number of bins.
	Histogram Histogram
}

// SummarizeTimes applies the timing guide's protocol ("Processing the
// measurements") to repeated measurements of one fragment, in the order they were
// taken: drop o.Warmup leading repetitions, cut the preemption tail ([CutTail]), then
// describe the kept samples: mean, s, standard error s/√N, extremes, the
// Shapiro–Wilk test, the interval of the mean (normal data: Student/normal
// coefficient; otherwise the guide's range half-width, whose stated confidence needs
// N ≥ 29), the median with its interval, and the Sturges histogram. The input is not
// modified.
func SummarizeTimes(xs []float64, o TimingOptions) TimingSummary {
	var s TimingSummary
	w := min(max(o.Warmup, 0), len(xs))
	s.Warmup = xs[:w]
	rest := DropWarmup(xs, w)
	if o.TailK < 0 {
		s.Tail = TailCut{Kept: rest, Median: Median(rest), Scale: math.NaN(), Threshold: math.Inf(1)}
	} else {
		s.Tail = CutTail(rest, o.TailK)
	}
	kept := s.Tail.Kept
	s.N = len(kept)
	m := MomentsOf(kept)
	s.Mean, s.StdDev, s.StdErr = m.Mean, m.StdDev(), m.StdErr()
	s.Min, s.Max = math.NaN(), math.NaN()
	if s.N > 0 {
		s.Min, s.Max = kept[0], kept[0]
		for _, x := range kept {
			s.Min, s.Max = min(s.Min, x), max(s.Max, x)
		}
	} else {
		s.Mean = math.NaN()
	}

	s.Normality = testNormality(kept)
	s.Normal = s.Normality.Err == nil && s.Normality.P >= o.Alpha
	if s.Normal {
		s.Interval = MeanInterval(m, o.Confidence)
	} else {
		h := RangeHalfWidth(s.Mean, s.Min, s.Max)
		s.Interval = Interval{Center: s.Mean, Lo: s.Mean - h, Hi: s.Mean + h, Confidence: o.Confidence}
		if s.Normality.Err != nil {
			s.Interval.Warnings = append(s.Interval.Warnings, fmt.Errorf("normality not tested: %w", s.Normality.Err))
		} else {
			s.Interval.Warnings = append(s.Interval.Warnings, fmt.Errorf("not normal (Shapiro-Wilk p = %.3g): half-width is the range rule max(t_max − mean, mean − t_min)", s.Normality.P))
		}
		if s.N < 29 {
			s.Interval.Warnings = append(s.Interval.Warnings, fmt.Errorf("%d samples: the range rule needs N ≥ 29 for its confidence", s.N))
		}
	}
	if s.Normality.Err == nil && s.Normality.N < s.N {
		s.Interval.Warnings = append(s.Interval.Warnings, fmt.Errorf("normality tested on %d of %d samples", s.Normality.N, s.N))
	}
	s.Median = MedianInterval(kept, o.Confidence)
	s.Histogram = NewHistogram(kept, 0)
	return s
}

// testNormality runs Shapiro–Wilk on xs, or on ShapiroWilkMaxN evenly spaced samples
// of it (indices ⌊i·n/5000⌋, in measurement order) when there are more.
func testNormality(xs []float64) Normality {
	t := Normality{Test: "Shapiro-Wilk", N: len(xs)}
	sub := xs
	if len(xs) > ShapiroWilkMaxN {
		sub = make([]float64, ShapiroWilkMaxN)
		for i := range sub {
			sub[i] = xs[i*len(xs)/ShapiroWilkMaxN]
		}
		t.N = len(sub)
	}
	t.W, t.P, t.Err = ShapiroWilk(sub)
	return t
}
