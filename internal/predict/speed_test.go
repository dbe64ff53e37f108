package predict

import (
	"math"
	"testing"

	"github.com/fragprof/fragprof/internal/trace"
)

// speedRuns makes 10 input points × 5 runs of a loop of n steps of 1000 ns at the
// machine's normal speed (probe 500 ns), each run slowed by (probe/500)^2 with its
// probe cycling through 500, 550, 600, 700, 500.
func speedRuns() []*trace.Trace {
	probes := []float64{500, 550, 600, 700, 500}
	var out []*trace.Trace
	for k := 0; k < 10; k++ {
		n := 10 + 10*k
		for r, p := range probes {
			s := newSynth(uint64(k), "n", n)
			s.t.Header.Rep = r
			s.t.OverheadNs = p
			dt := int64(math.Round(1000 * (p / 500) * (p / 500)))
			s.point("start", 0)
			for i := 0; i < n; i++ {
				s.point("step", dt)
			}
			s.point("end", dt)
			out = append(out, s.done())
		}
	}
	return out
}

// TestFitSpeed: times ∝ probe² within every point give β = 2 with no residual, the
// normal probe 500 (the 10% quantile), the spread 700/500 and 40% of the runs
// over 1.1 × 500; adjusting divides each run's times by (p/500)², so that every
// run of a point lasts (n + 1) µs.
func TestFitSpeed(t *testing.T) {
	ts := speedRuns()
	s := fitSpeed(ts)
	if s == nil {
		t.Fatal("no speed fit")
	}
	if math.Abs(s.Beta-2) > 1e-3 || s.SE > 1e-3 || s.RefNs != 500 || math.Abs(s.Spread-1.4) > 1e-9 ||
		math.Abs(s.Slow-0.4) > 1e-9 || s.Points != 10 || s.Runs != 50 || !s.Significant() {
		t.Errorf("got %+v, want β 2, SE 0, p₀ 500, spread 1.4, 40%% slow, 10 points, 50 runs", s)
	}
	adj := s.adjust(ts)
	fresh := speedRuns()
	for i, a := range adj {
		th := a.Main()
		n, _ := a.Input("n")
		if got, want := th.Time[th.Len()-1]-th.Time[0], int64(1000*(n+1)); math.Abs(float64(got-want)) > n {
			t.Errorf("run %d (n = %v, probe %v): %d ns after adjusting, want %d", i, n, a.OverheadNs, got, want)
		}
		o, f := ts[i].Main(), fresh[i].Main()
		if o.Time[o.Len()-1] != f.Time[f.Len()-1] {
			t.Errorf("run %d: adjust changed the original trace", i)
		}
	}
	// No dependence: every run at the normal speed — nothing to fit.
	for _, tr := range ts {
		tr.OverheadNs = 500
	}
	if s := fitSpeed(ts); s != nil {
		t.Errorf("probes that do not vary: got %+v, want nil", s)
	}
}

// TestBuildSpeedAdjust: with --speed-adjust the model predicts the time at the
// normal speed — (n + 1) µs — where without it the slow runs lift the medians.
func TestBuildSpeedAdjust(t *testing.T) {
	for _, adjust := range []bool{false, true} {
		opt := DefaultOptions
		opt.Holdout = 0
		opt.SpeedAdjust = adjust
		m, err := Build(speedRuns(), opt)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(map[string]float64{"n": 200}, PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e := p.TimeNs/201e3 - 1
		t.Logf("speed-adjust %v: %s; predicted %.0f ns at n = 200 (%+.1f%%)", adjust, m.Speed, p.TimeNs, 100*e)
		if m.Speed == nil || m.Speed.Adjusted != adjust {
			t.Fatalf("speed %+v, want adjusted = %v", m.Speed, adjust)
		}
		if adjust && math.Abs(e) > 0.01 {
			t.Errorf("adjusted: predicted %.0f ns at n = 200, want 201000 within 1%%", p.TimeNs)
		}
		if !adjust && e < 0.1 {
			t.Errorf("not adjusted: predicted %.0f ns at n = 200, want the slow runs' median (≥ 10%% over 201000)", p.TimeNs)
		}
	}
}
