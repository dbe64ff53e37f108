// This file implements Interval and the confidence interval of a mean.

package stats

import (
	"fmt"
	"math"
)

// Interval is an estimate with its confidence interval, shaped like benchmath's
// Summary: Center is the estimate, [Lo, Hi] the interval, Confidence the coverage the
// interval actually reaches (which may be below the one asked for; a warning then
// says so) and Warnings the reasons to distrust it. Thin data is a warning, never an
// error.
type Interval struct {
	Center     float64
	Lo, Hi     float64
	Confidence float64
	Warnings   []error
}

// HalfWidth returns max(Hi − Center, Center − Lo): the Δ of "Center ± Δ".
func (i Interval) HalfWidth() float64 { return max(i.Hi-i.Center, i.Center-i.Lo) }

// Contains reports whether Lo ≤ x ≤ Hi.
func (i Interval) Contains(x float64) bool { return i.Lo <= x && x <= i.Hi }

// MeanInterval returns the confidence interval of the mean of the values accumulated
// in m: x̄ ± k·s/√n with k = [Coefficient](confidence, n) (Student's t below 30
// samples, the normal quantile from 30 on) and s/√n the standard error. It assumes
// the values are independent and their mean is close to normal (the values normal, or
// n large). With fewer than 2 values the interval is (−∞, +∞) and carries a warning.
func MeanInterval(m Moments, confidence float64) Interval {
	iv := Interval{Center: m.Mean, Confidence: confidence}
	if m.N == 0 {
		iv.Center = math.NaN()
	}
	if m.N < 2 {
		iv.Lo, iv.Hi = math.Inf(-1), math.Inf(1)
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%d sample(s): need at least 2 for an interval", m.N))
		return iv
	}
	h := Coefficient(confidence, int(m.N)) * m.StdErr()
	iv.Lo, iv.Hi = m.Mean-h, m.Mean+h
	return iv
}
