package stats

import (
	"math"
	"testing"
)

func TestMedianInterval(t *testing.T) {
	seq := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[(i*7)%n] = float64(i + 1) // a permutation of 1..n when gcd(7, n) = 1
		}
		return xs
	}
	// Coverages 1 − 2·F(l − 1) from R: 1 - 2*pbinom(l - 1, n, 0.5).
	for _, tc := range []struct {
		n        int
		conf     float64
		lo, hi   float64 // x₍ₗ₎ and x₍ₙ₊₁₋ₗ₎ of 1..n: l and n + 1 − l
		coverage float64
		warn     bool
	}{
		// n = 10: F(1) = 11/1024, F(2) = 56/1024: l = 2, coverage 0.978515625.
		{10, 0.95, 2, 9, 0.978515625, false},
		// n = 100: the textbook ranks 40 and 61; 1 − 2·pbinom(39, 100, .5).
		{100, 0.95, 40, 61, 0.964799799782295, false},
		// n = 100 at 97.5 %: l = 39, 1 − 2·pbinom(38, 100, .5).
		{100, 0.975, 39, 62, 0.979021264322148, false},
		// n = 6 is the smallest with [x₍₁₎, x₍ₙ₎] at 95 %: 1 − 2⁻⁵ = 0.96875.
		{6, 0.95, 1, 6, 0.96875, false},
		// n = 5 falls short: 1 − 2⁻⁴ = 0.9375, with a warning.
		{5, 0.95, 1, 5, 0.9375, true},
	} {
		iv := MedianInterval(seq(tc.n), tc.conf)
		if iv.Lo != tc.lo || iv.Hi != tc.hi || !closeRel(iv.Confidence, tc.coverage, 1e-12, 0) || (len(iv.Warnings) > 0) != tc.warn {
			t.Errorf("n = %d, %v: %+v, want [%v, %v] at %v (warning %v)", tc.n, tc.conf, iv, tc.lo, tc.hi, tc.coverage, tc.warn)
		}
		if want := float64(tc.n+1) / 2; iv.Center != want {
			t.Errorf("n = %d: median %v, want %v", tc.n, iv.Center, want)
		}
	}
	if iv := MedianInterval(nil, 0.95); !math.IsNaN(iv.Center) || len(iv.Warnings) != 1 {
		t.Errorf("MedianInterval(nil) = %+v", iv)
	}
}
