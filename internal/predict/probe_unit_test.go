package predict

import (
	"math"
	"testing"
)

// TestProbeBias: the calibration corrects a probe's estimate by the training
// cuts' median error only when that error holds across the training sizes.
func TestProbeBias(t *testing.T) {
	totals := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		name string
		errs []float64
		want float64
	}{
		// merge sort's first pass, 1.4 times a later one at every size
		{"steady", []float64{-0.36, -0.33, -0.35, -0.30, -0.34, -0.37, -0.31, -0.35}, -0.345},
		// a stencil's cold first step, a smaller share of a larger run
		{"fading", []float64{-0.30, -0.25, -0.22, -0.18, -0.06, -0.05, -0.03, -0.02}, 0},
		// noise around no bias
		{"mixed", []float64{0.02, -0.03, 0.01, -0.01, 0.03, -0.02, -0.01, 0.02}, 0},
		{"too few", []float64{-0.3, -0.3, -0.3}, 0},
	}
	for _, c := range cases {
		if got := probeBias(c.errs, totals[:len(c.errs)]); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: bias %v, want %v", c.name, got, c.want)
		}
	}
}
