// This file implements the confidence interval of a ratio of two means.

package stats

import (
	"fmt"
	"math"
)

// RatioInterval returns R = ȳ/x̄, the ratio of the means of n paired samples (the CPU
// time of sampled runs over that of the plain runs alternated with them), and its
// confidence interval by the delta method, the linearisation of the ratio estimator:
//
//	Var(R) ≈ (s_y² − 2R·s_xy + R²·s_x²) / (n·x̄²),
//
// with s² and s_xy the sample variances and covariance (Cochran, "Sampling
// Techniques", 3rd ed., 1977, §6.4, the ratio estimator's approximate variance
// without the finite population correction), and R ± k·√Var(R) with k = [Coefficient](confidence, n). Unlike the
// median of the pairs' ratios it weighs each pair by its length and stays right when
// one arm is a mixture — runs the sampler thinned out, which cost nothing, among runs
// it sampled —, where the median describes neither. With fewer than 2 pairs the
// interval is (−∞, +∞) and carries a warning; so it is when x̄ is not positive.
func RatioInterval(y, x []float64, confidence float64) Interval {
	n := min(len(x), len(y))
	iv := Interval{Center: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), Confidence: confidence}
	if n < 2 {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%d pair(s): need at least 2 for an interval", n))
		if n == 1 && x[0] > 0 {
			iv.Center = y[0] / x[0]
		}
		return iv
	}
	var mx, my float64
	for i := 0; i < n; i++ {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	if mx <= 0 {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("the mean of the denominators is %g, not positive", mx))
		return iv
	}
	r := my / mx
	var sxx, syy, sxy float64
	for i := 0; i < n; i++ {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	d := float64(n - 1)
	v := (syy/d - 2*r*sxy/d + r*r*sxx/d) / (float64(n) * mx * mx)
	h := Coefficient(confidence, n) * math.Sqrt(max(v, 0))
	iv.Center, iv.Lo, iv.Hi = r, r-h, r+h
	return iv
}
