package stats

import (
	"math"
	"testing"
)

// TestWelchMargin against values worked by hand: two samples of 20, each alternating
// ±0.1 around its mean, have s² = 20·0.01/19 and ν = 2·19 = 38, t_{0.95,38} =
// 1.685954 (Student's t table), so the margin is 1.685954·√(2·0.01/19) = 0.054700;
// with unequal variances and sizes (10 values ±0.2, 40 values ±0.05) ν falls to
// (A+B)²/(A²/9 + B²/39); constant samples give 0, a sample of one +Inf.
func TestWelchMargin(t *testing.T) {
	alt := func(n int, mean, dev float64) Moments {
		var m Moments
		for i := 0; i < n; i++ {
			m.Add(mean + dev*float64(1-2*(i%2)))
		}
		return m
	}
	if got := WelchMargin(alt(20, 2.5, 0.1), alt(20, 2, 0.1), 0.95); math.Abs(got-0.054700) > 5e-7 {
		t.Errorf("equal samples: margin %.7f, want 0.054700", got)
	}
	a, b := alt(10, 1, 0.2), alt(40, 0, 0.05)
	va, vb := 10*0.04/9/10, 40*0.0025/39/40
	nu := (va + vb) * (va + vb) / (va*va/9 + vb*vb/39)
	if got, want := WelchMargin(a, b, 0.95), StudentQuantile(0.95, nu)*math.Sqrt(va+vb); math.Abs(got-want) > 1e-12 || nu > 10 || nu < 9 {
		t.Errorf("unequal samples: margin %g, want %g (ν = %.2f, near the smaller sample's 9)", got, want, nu)
	}
	if got := WelchMargin(alt(5, 1, 0), alt(5, 0, 0), 0.95); got != 0 {
		t.Errorf("constant samples: %g, want 0", got)
	}
	if got := WelchMargin(alt(1, 1, 0), alt(5, 0, 0.1), 0.95); !math.IsInf(got, 1) {
		t.Errorf("a sample of one: %g, want +Inf", got)
	}
}
