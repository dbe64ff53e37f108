package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRatioIntervalExact: a hand-computed case. x = 1, 2, 3, 4; y = 2, 2, 5, 7:
// x̄ = 2.5, ȳ = 4, R = 1.6; s_x² = 5/3, s_y² = 18/3 = 6, s_xy = 9/3 = 3;
// Var(R) = (6 − 2·1.6·3 + 2.56·5/3)/(4·6.25) = (2/3)/25;
// t(0.975, 3) = 3.182446305284263.
func TestRatioIntervalExact(t *testing.T) {
	iv := RatioInterval([]float64{2, 2, 5, 7}, []float64{1, 2, 3, 4}, 0.95)
	h := 3.182446305284263 * math.Sqrt(2.0/3/25)
	if math.Abs(iv.Center-1.6) > 1e-12 || math.Abs(iv.Lo-(1.6-h)) > 1e-9 || math.Abs(iv.Hi-(1.6+h)) > 1e-9 {
		t.Errorf("got %.12f [%.12f, %.12f], want 1.6 ± %.12f", iv.Center, iv.Lo, iv.Hi, h)
	}
	if iv := RatioInterval([]float64{3}, []float64{2}, 0.95); iv.Center != 1.5 || !math.IsInf(iv.Hi, 1) || len(iv.Warnings) == 0 {
		t.Errorf("one pair: %+v, want 1.5 with an infinite interval and a warning", iv)
	}
	if iv := RatioInterval([]float64{1, 2}, []float64{0, 0}, 0.95); !math.IsNaN(iv.Center) || len(iv.Warnings) == 0 {
		t.Errorf("zero denominators: %+v, want NaN and a warning", iv)
	}
}

// TestRatioIntervalCoverage: over 4,000 simulated experiments of 100 pairs like a
// thinned sampler's — plain runs of 2–4 ms with noise, and a sampled arm where 60 %
// of the runs carry a 7 % cost and the rest none — the 95 % interval covers the true
// ratio of the means (1 + 0.6·0.07) in 93–97 % of them, where the median of the
// pairs' ratios misses it by construction.
func TestRatioIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const trials, n = 4000, 100
	truth := 1 + 0.6*0.07
	covered := 0
	for k := 0; k < trials; k++ {
		x := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			base := 2 + 2*rng.Float64() // the run's length, shared by both arms
			x[i] = base * (1 + 0.03*rng.NormFloat64())
			cost := 1.0
			if rng.Float64() < 0.6 {
				cost = 1.07
			}
			y[i] = base * cost * (1 + 0.03*rng.NormFloat64())
		}
		if RatioInterval(y, x, 0.95).Contains(truth) {
			covered++
		}
	}
	if c := float64(covered) / trials; c < 0.93 || c > 0.97 {
		t.Errorf("coverage %.3f of the 95%% interval, want 0.93–0.97", c)
	}
}
