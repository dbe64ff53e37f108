package stats

import (
	"math"
	"testing"
)

func TestNormalCoefficient(t *testing.T) {
	// The timing guide's k table, to the digits R gives:
	// qnorm(c(0.95, 0.975, 0.995, 0.9985, 0.9995)).
	for _, tc := range []struct {
		p, want float64
	}{
		{0.90, 1.64485362695147},
		{0.95, 1.95996398454005},
		{0.99, 2.5758293035489},
		{0.997, 2.96773792534179}, // the guide prints 3.00
		{0.999, 3.29052673149193},
	} {
		if got := NormalCoefficient(tc.p); !closeRel(got, tc.want, 1e-12, 0) {
			t.Errorf("NormalCoefficient(%v) = %.15g, want %.15g", tc.p, got, tc.want)
		}
	}
}

func TestStudentQuantile(t *testing.T) {
	// R: qt(c(0.975, 0.975, 0.975, 0.95, 0.995, 0.975), c(1, 9, 29, 4, 5, 2)); the
	// printed tables give 12.706, 2.262, 2.045, 2.132, 4.032, 4.303.
	for _, tc := range []struct {
		p, nu, want float64
	}{
		{0.975, 1, 12.7062047361747},
		{0.975, 9, 2.2621571627982},
		{0.975, 29, 2.0452296421327},
		{0.95, 4, 2.13184678632665},
		{0.995, 5, 4.03214298355523},
		{0.975, 2, 4.30265272974946},
	} {
		if got := StudentQuantile(tc.p, tc.nu); !closeRel(got, tc.want, 1e-9, 0) {
			t.Errorf("StudentQuantile(%v, %v) = %.15g, want %.15g", tc.p, tc.nu, got, tc.want)
		}
	}
}

func TestCoefficient(t *testing.T) {
	for _, tc := range []struct {
		conf float64
		n    int
		want float64
	}{
		{0.95, 1, math.Inf(1)},
		{0.95, 2, 12.7062047361747},  // t, 1 df
		{0.95, 10, 2.2621571627982},  // t, 9 df
		{0.95, 29, 2.04840714179525}, // t, 28 df: qt(0.975, 28)
		{0.95, 30, 1.95996398454005}, // from 30 on: normal
		{0.99, 1000, 2.5758293035489},
	} {
		if got := Coefficient(tc.conf, tc.n); !(got == tc.want || closeRel(got, tc.want, 1e-9, 0)) {
			t.Errorf("Coefficient(%v, %d) = %.15g, want %.15g", tc.conf, tc.n, got, tc.want)
		}
	}
}

func TestMeanInterval(t *testing.T) {
	// x = 1..10: x̄ = 5.5, s² = 82.5/9 = 9.1667, s/√n = 0.957427; t(0.975, 9) =
	// 2.262157: 5.5 ± 2.165852 (R: t.test(1:10)$conf.int = 3.334149 7.665851).
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	iv := MeanInterval(MomentsOf(xs), 0.95)
	if !closeRel(iv.Lo, 3.334149, 1e-6, 0) || !closeRel(iv.Hi, 7.665851, 1e-6, 0) || iv.Center != 5.5 || iv.Confidence != 0.95 || len(iv.Warnings) != 0 {
		t.Errorf("MeanInterval(1..10) = %+v", iv)
	}
	if !closeRel(iv.HalfWidth(), 2.165851, 1e-6, 0) || !iv.Contains(3.4) || iv.Contains(3.3) {
		t.Errorf("HalfWidth %v / Contains wrong", iv.HalfWidth())
	}
	// 1..40: M2 = 39·(40·41/12) = 5330, s = 11.6905, s/√40 = 1.848423; normal
	// coefficient from 30 on: 20.5 ± 1.959964·1.848423 = 20.5 ± 3.622842.
	xs = xs[:0]
	for i := 1; i <= 40; i++ {
		xs = append(xs, float64(i))
	}
	iv = MeanInterval(MomentsOf(xs), 0.95)
	if h := 1.95996398454005 * math.Sqrt(5330.0/39/40); !closeRel(iv.HalfWidth(), h, 1e-12, 0) {
		t.Errorf("MeanInterval(1..40) half-width %v, want %v", iv.HalfWidth(), h)
	}
	for _, n := range []int{0, 1} {
		iv := MeanInterval(MomentsOf(xs[:n]), 0.95)
		if len(iv.Warnings) != 1 || !math.IsInf(iv.Lo, -1) || !math.IsInf(iv.Hi, 1) {
			t.Errorf("MeanInterval of %d values = %+v, want (−∞, ∞) with a warning", n, iv)
		}
	}
}
