//go:build integration

package predict

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/trace"
)

// TestProbe: partial execution on a real program whose time per step triples past
// n = 1000 (testdata/regime.c), a change no training run (n ≤ 400) can see. Every
// law fitted on the training runs misses n = 1600 by about 3×; three probes of
// that input stopped after 10 ms (about 2% of its run) must bring the prediction
// within 20% of the median of three whole runs — the probes and the runs are
// separate executions on a shared machine — and the interval must contain it. A
// whole run given as a probe predicts its own time; a probe of another input is
// an error that names it.
func TestProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and traces a program (~5 s); skipped with -short")
	}
	m, ts, whole := probeSetup(t, "regime.c", "n = uniform_int(100, 400)", 12, 10*time.Millisecond)
	if m.Probe == nil || len(m.Probe.Q) == 0 {
		t.Fatalf("no probe calibration: %+v", m.Probe)
	}
	truth := stats.Median(whole)
	in := map[string]float64{"n": 1600}
	p, err := m.Predict(in, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := math.Abs(p.TimeNs-truth) / truth
	if before < 0.4 {
		t.Fatalf("without the probe the prediction %.4g ms is within %.0f%% of the runs' %.4g ms: the change of regime did not show", p.TimeNs/1e6, 100*before, truth/1e6)
	}
	for _, tr := range ts[2] {
		if !tr.Stopped {
			t.Fatalf("%s: not stopped", tr.Name)
		}
	}
	if h := p.ProbeHint; h == nil || h.StopEvents < minSelfTest || h.StopEvents >= 1600 {
		t.Errorf("n = 1600, 4× beyond the range: probe hint %+v", h)
	}
	if err := m.ApplyProbe(p, in, ts[2], PredictOptions{}); err != nil {
		t.Fatal(err)
	}
	if p.ProbeHint != nil {
		t.Errorf("a probed prediction still suggests a probe: %+v", p.ProbeHint)
	}
	after := math.Abs(p.TimeNs-truth) / truth
	t.Logf("n = 1600: runs %v ns; without the probe %.4g ms (%s, off %.0f%%), with it %.4g ms [%.4g, %.4g] (off %.1f%%); probe %+v",
		whole, p.Probe.ModelNs/1e6, p.Probe.ModelChosen, 100*before, p.TimeNs/1e6, p.Interval[0]/1e6, p.Interval[1]/1e6, 100*after, *p.Probe)
	if after > 0.2 {
		t.Errorf("with the probes the prediction is %.0f%% off the runs' median", 100*after)
	}
	if p.Chosen != "probe" || p.IntervalLevel != 0.9 || !(p.Interval[0] < p.TimeNs && p.TimeNs < p.Interval[1]) {
		t.Errorf("chosen %s, interval %v at level %v around %v", p.Chosen, p.Interval, p.IntervalLevel, p.TimeNs)
	}
	if truth < p.Interval[0] || truth > p.Interval[1] {
		t.Errorf("the runs' median %.4g ms is outside the interval [%.4g, %.4g]", truth/1e6, p.Interval[0]/1e6, p.Interval[1]/1e6)
	}
	if s := p.Probe.Share; s < 0.005 || s > 0.1 {
		t.Errorf("the probes are %.3g of the run by the model, want about 0.02", s)
	}

	// A whole run is a probe of share 1: its own time.
	q, _ := m.Predict(in, PredictOptions{})
	if err := m.ApplyProbe(q, in, ts[1][:1], PredictOptions{}); err != nil {
		t.Fatal(err)
	}
	if q.TimeNs != whole[0] || q.Probe.Share != 1 {
		t.Errorf("a whole run as the probe: predicted %v, share %v; want its time %v", q.TimeNs, q.Probe.Share, whole[0])
	}
	// A probe of another input.
	other := map[string]float64{"n": 800}
	r, _ := m.Predict(other, PredictOptions{})
	err = m.ApplyProbe(r, other, ts[2], PredictOptions{})
	if err == nil || !strings.Contains(err.Error(), "n = 1600") || !strings.Contains(err.Error(), ts[2][0].Name) {
		t.Errorf("a probe of n = 1600 for n = 800: %v", err)
	}
	// Model build learns nothing from probes.
	opt := DefaultOptions
	opt.Holdout = 0
	if _, err := Build(ts[2], opt); err == nil || !strings.Contains(err.Error(), "usable") {
		t.Errorf("a model from probes alone: %v", err)
	}
}

// probeSetup builds testdata/src, traces `trials` training inputs drawn from
// train and, at n = 1600, three whole runs and three probes stopped after stop
// (three rounds), and builds a model from the training runs (no hold-out). It
// returns the model, the three sets of traces, and the whole runs' times.
func probeSetup(t *testing.T, src, train string, trials uint64, stop time.Duration) (*Model, [][]*trace.Trace, []float64) {
	t.Helper()
	exampleTmp(t)
	sets := [][]string{{train}, {"n = choice(1600)"}, {"n = choice(1600)"}}
	ts := traceSets(t, filepath.Join("testdata", src), `{n}\n`, sets, nil, []uint64{trials, 1, 1}, 3,
		[]time.Duration{0, 0, stop})
	opt := DefaultOptions
	opt.Holdout = 0
	m, err := Build(ts[0], opt)
	if err != nil {
		t.Fatal(err)
	}
	var whole []float64
	for _, tr := range ts[1] {
		whole = append(whole, float64(tr.Main().Span()))
	}
	return m, ts, whole
}
