//go:build integration

package predict

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/stats"
)

// TestProbeDrift: probes of an input whose time per row drifts upward along the
// run, which no training run shows (testdata/drift.c: at n = 1600 each row costs
// more per step than the one before, up to 49× at the last; trained on
// n ∈ [200, 500], where the cost per step is constant). The model must have
// learnt the rows' shape (row time ∝ r, from the recorded r: withinRunTime), or
// the probes' self-test could not tell a drift from the model's flat rows. Three
// probes of 100 ms (under 2% of the run) must fail their self-test clearly (the
// median beyond twice the training runs' limit: 4.5–7.6 times it in six runs of
// the test, two of them beside two compilers running at once; with a drift of
// 13× at the last row and 50 ms probes it was 1.5–1.9 times it under make test,
// beside other packages' tests, where the training runs' limit doubled). The
// prediction must then be carried up (Drift > 1) and be nearer the median of
// three whole runs than the estimate without the drift, the interval must reach
// from that estimate to past the truth (its far end, the rate growing linearly
// in rows, is drift.c's own law), and a note must say so.
func TestProbeDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and traces a program (~10 s); skipped with -short")
	}
	m, ts, whole := probeSetup(t, "drift.c", "n = uniform_int(200, 500)", 16, 100*time.Millisecond)
	for _, a := range m.Arcs {
		if a.From == a.To && !slices.Contains(a.Time.Vars, "r") {
			t.Errorf("the row loop's time %s does not follow r", a.Time.String())
		}
	}
	truth := stats.Median(whole)
	in := map[string]float64{"n": 1600}
	p, err := m.Predict(in, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.ApplyProbe(p, in, ts[2], PredictOptions{}); err != nil {
		t.Fatal(err)
	}
	pr := p.Probe
	flat := p.TimeNs / pr.Drift
	t.Logf("n = 1600: runs %.4g ms; from the probes %.4g ms [%.4g, %.4g] (%+.1f%%), without the drift %.4g ms (%+.1f%%); self-test %.3g against %.3g, drift ×%.3g, linear %.4g ms",
		truth/1e6, p.TimeNs/1e6, p.Interval[0]/1e6, p.Interval[1]/1e6, 100*(p.TimeNs/truth-1), flat/1e6, 100*(flat/truth-1),
		pr.SelfError, pr.SelfLimit, pr.Drift, pr.LinearNs/1e6)
	if !(pr.Drift > 1) {
		t.Fatalf("the drift was not carried: self-test %.3g against twice the training runs' %.3g", pr.SelfError, pr.SelfLimit)
	}
	if math.Abs(math.Log(p.TimeNs/truth)) >= math.Abs(math.Log(flat/truth)) {
		t.Errorf("carrying the drift did not bring the prediction nearer: %.4g ms against %.4g without, truth %.4g", p.TimeNs/1e6, flat/1e6, truth/1e6)
	}
	if !(p.Interval[0] < flat && truth < p.Interval[1]) {
		t.Errorf("interval [%.4g, %.4g] ms: want it from below %.4g (no drift) to above the truth %.4g", p.Interval[0]/1e6, p.Interval[1]/1e6, flat/1e6, truth/1e6)
	}
	if !slices.ContainsFunc(pr.Notes, func(n string) bool { return strings.Contains(n, "drift") }) {
		t.Errorf("no note of the drift: %q", pr.Notes)
	}
}
