package regress

import (
	"math"
	"testing"
)

// TestSegmentedExact: times that change slope where the data leaves a cache —
// t = 1000 + 2·n² up to n = 400, 5·n² beyond — are fitted exactly: k = 2, the
// breakpoint at 400, and the prediction 4× beyond the range within 0.1%, where
// the best single power law is far off.
func TestSegmentedExact(t *testing.T) {
	truth := func(n float64) float64 {
		return 1000 + 2*n*n + 3*math.Max(0, n*n-400*400)
	}
	X, y := grid(truth)
	s := FitSegmented([]string{"n"}, X, y)
	if s == nil {
		t.Fatal("no segmented fit")
	}
	if err := s.Compile([]string{"n"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("segmented: %s, CV MAPE %.3g", s, s.CVMAPE)
	if s.K != 2 || s.X0 != 400 || s.CVMAPE > 1e-6 {
		t.Errorf("fit %s (k %g, breakpoint %g, CV MAPE %.3g): want k = 2, breakpoint 400, exact", s, s.K, s.X0, s.CVMAPE)
	}
	far := 3200.0
	if got, want := s.Eval([]float64{far}), truth(far); math.Abs(got/want-1) > 1e-3 {
		t.Errorf("at n = %g: %.6g, want %.6g", far, got, want)
	}
	p := FitPowerLaw([]string{"n"}, X, y)
	if err := p.Compile([]string{"n"}); err != nil {
		t.Fatal(err)
	}
	if e := math.Abs(p.Eval([]float64{far})/truth(far) - 1); e < 0.05 {
		t.Errorf("the power law %s predicts n = %g within %.3g: the test shows no difference", p, far, e)
	}
	// Too few points on a side: no fit rather than a slope from two points.
	if FitSegmented([]string{"n"}, X[:5], y[:5]) != nil {
		t.Error("a segmented fit from 5 points")
	}
}

// TestSegmentedKnownBreak: when the slope changes between two training inputs —
// at n = 437, where (say) the working set reaches L2's size — the break given as
// known is fitted exactly and named, while the search over training inputs alone
// can only approximate it; a known break with fewer than MinSegmentPoints inputs
// on a side is not tried.
func TestSegmentedKnownBreak(t *testing.T) {
	truth := func(n float64) float64 {
		return 1000 + 2*n*n + 3*math.Max(0, n*n-437*437)
	}
	X, y := grid(truth)
	s := FitSegmented([]string{"n"}, X, y, Break{Input: "n", X: 437, Level: 2}, Break{Input: "m", X: 300, Level: 1})
	if s == nil {
		t.Fatal("no segmented fit")
	}
	t.Logf("with the known break: %s, CV MAPE %.3g", s, s.CVMAPE)
	if s.K != 2 || s.X0 != 437 || s.Cache != 2 || s.CVMAPE > 1e-6 {
		t.Errorf("fit %s (k %g, breakpoint %g at L%d, CV MAPE %.3g): want k = 2, breakpoint 437 at L2, exact", s, s.K, s.X0, s.Cache, s.CVMAPE)
	}
	alone := FitSegmented([]string{"n"}, X, y)
	t.Logf("searched: %s, CV MAPE %.3g", alone, alone.CVMAPE)
	if alone.Cache != 0 || alone.X0 == 437 || alone.CVMAPE <= 1e-6 {
		t.Errorf("without the known break: %s (L%d, CV MAPE %.3g): want a training input as breakpoint and an inexact fit", alone, alone.Cache, alone.CVMAPE)
	}
	// 175 has only 100 and 150 below it: not tried.
	if s := FitSegmented([]string{"n"}, X, y, Break{Input: "n", X: 175, Level: 1}); s.Cache != 0 {
		t.Errorf("a break with 2 inputs below it was used: %s", s)
	}
}

// grid returns the training inputs n = 100, 150, …, 800 and their times truth(n).
func grid(truth func(float64) float64) (X [][]float64, y []float64) {
	for n := 100.0; n <= 800; n += 50 {
		X = append(X, []float64{n})
		y = append(y, truth(n))
	}
	return X, y
}
