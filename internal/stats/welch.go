// This file implements the margin of a difference of two independent means.

package stats

import "math"

// WelchMargin returns the one-sided margin of the difference of the means of two
// independent samples with unequal variances, at probability p (0.95 for an upper
// 95% bound of x̄_a − x̄_b):
//
//	t_{p,ν} · √(A + B),   A = s²_a/n_a,  B = s²_b/n_b,   ν = (A + B)² / (A²/(n_a−1) + B²/(n_b−1)),
//
// Welch's standard error and the Welch–Satterthwaite degrees of freedom (B. L.
// Welch, "The generalization of 'Student's' problem when several different
// population variances are involved", Biometrika 34, 1947). It is 0 when both
// samples are constant and +Inf when either has fewer than 2 values.
func WelchMargin(a, b Moments, p float64) float64 {
	if a.N < 2 || b.N < 2 {
		return math.Inf(1)
	}
	va := a.Variance() / float64(a.N)
	vb := b.Variance() / float64(b.N)
	if va+vb == 0 {
		return 0
	}
	nu := (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	return StudentQuantile(p, nu) * math.Sqrt(va+vb)
}
