package predict

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/trace"
)

// TestCheckPValue: the conformal p-value (1 + #{s_r ≥ s}) / (R + 1), the
// limit beyond which a score is flagged at α, and the scores of a set of
// runs, against values worked by hand.
func TestCheckPValue(t *testing.T) {
	// d = 0.1, 0.3, 0.6, 1.0, 1.5: median 0.6, scores 0, 0.3, 0.4, 0.5, 0.9.
	a := spreadOf([]float64{1.0, 0.1, 1.5, 0.6, 0.3})
	if a.Runs != 5 || a.Center != 0.6 {
		t.Fatalf("runs %d, center %v; want 5 and 0.6", a.Runs, a.Center)
	}
	want := []float64{0, 0.3, 0.4, 0.5, 0.9}
	for i, w := range want {
		if math.Abs(a.Devs[i]-w) > 1e-12 {
			t.Fatalf("scores %v, want %v", a.Devs, want)
		}
	}
	for _, c := range []struct{ s, p float64 }{
		{0, 6.0 / 6}, // every training score is ≥ 0
		{0.35, 4.0 / 6},
		{0.5, 3.0 / 6}, // ties count as ≥
		{0.9 + 1e-9, 1.0 / 6},
		{7, 1.0 / 6},
	} {
		if p := a.PValue(c.s); math.Abs(p-c.p) > 1e-12 {
			t.Errorf("PValue(%v) = %v, want %v", c.s, p, c.p)
		}
	}
	// α = 1/3: ⌊(1/3)·6⌋ − 1 = 1 training score may be ≥ a flagged one: the
	// limit is the second largest, 0.5 (p(0.5) = 1/2, p(0.5+) = 1/3).
	if l := a.Limit(1.0 / 3); l != 0.5 {
		t.Errorf("Limit(1/3) = %v, want 0.5", l)
	}
	if l := a.Limit(1.0 / 6); l != 0.9 {
		t.Errorf("Limit(1/6) = %v, want 0.9", l)
	}
	// Below 1/(R + 1) nothing can be flagged.
	if l := a.Limit(0.1); !math.IsInf(l, 1) {
		t.Errorf("Limit(0.1) = %v, want +Inf with 5 training runs", l)
	}
	// Every limit agrees with the p-value: a score just beyond it has p ≤ α,
	// the limit itself p > α.
	for _, alpha := range []float64{1.0 / 6, 0.2, 1.0 / 3, 0.5, 0.9} {
		l := a.Limit(alpha)
		if !(a.PValue(l+1e-9) <= alpha && a.PValue(l) > alpha) {
			t.Errorf("α %v: limit %v, p just beyond %v, at it %v", alpha, l, a.PValue(l+1e-9), a.PValue(l))
		}
	}
	// More runs than MaxCheckDevs: the largest score of each block of three
	// (median 1499.5; scores 0.5, 0.5, 1.5, 1.5, …, 1499.5, 1499.5).
	d := make([]float64, 3*MaxCheckDevs)
	for i := range d {
		d[i] = float64(i)
	}
	b := spreadOf(d)
	if b.Runs != len(d) || len(b.Devs) != MaxCheckDevs || b.Devs[0] != 1.5 || b.Devs[1] != 2.5 || b.Devs[MaxCheckDevs-1] != 1499.5 {
		t.Errorf("thinned: runs %d, %d scores from %v to %v", b.Runs, len(b.Devs), b.Devs[0], b.Devs[len(b.Devs)-1])
	}
}

// checkRun traces a synthetic run of a loop of k rows: start, 300 ns to the
// first row, rows of rowNs each (times a noise of 3% drawn from rng), end.
func checkRun(trial uint64, k, rows int, rowNs float64, rng *rand.Rand) *synth {
	s := newSynth(trial, "K", k)
	s.point("start", 0)
	for i := 0; i < rows; i++ {
		dt := rowNs
		if i == 0 {
			dt = 300
		}
		s.point("row", int64(dt*(1+0.03*rng.NormFloat64())), "i", i)
	}
	s.point("end", 500)
	return s
}

// TestCheckRun: synthetic runs of a loop against the model of 40 runs of it —
// an unchanged run passes; one row fewer breaks row's rule, named with the
// event; three times the row time is a time deviation of row → row; a
// transition never seen is named; a checkpoint moved to another line is noted;
// another name, file or variable is a RunMismatch.
func TestCheckRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var train []*trace.Trace
	for r := 0; r < 40; r++ {
		k := 5 + r%16
		train = append(train, checkRun(uint64(r), k, k, 2000, rng).done())
	}
	m := buildNoHoldout(t, train)
	if m.CheckCal == nil || m.CheckCal.Runs != 40 {
		t.Fatalf("check calibration %+v", m.CheckCal)
	}
	if got := ruleText(m, "row"); !strings.Contains(got, "row → row when #row < $K") && !strings.Contains(got, "row → end when #row ≥ $K") {
		t.Fatalf("row's rule: %s", got)
	}
	check := func(tr *trace.Trace) *RunCheck {
		t.Helper()
		rc, err := m.CheckRun(tr, CheckOptions{Gamma: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	if rc := check(checkRun(100, 12, 12, 2000, rng).done()); rc.Deviates() || rc.ArcsTested != 1 || math.Abs(rc.Alpha-0.1) > 1e-12 {
		t.Errorf("unchanged run: %+v", rc)
	}
	rc := check(checkRun(101, 12, 11, 2000, rng).done())
	if len(rc.Deviations) != 1 || rc.Deviations[0].Kind != "rule" || rc.Deviations[0].From != "row" || rc.Deviations[0].To != "end" ||
		rc.Deviations[0].Expected != "row" || rc.Deviations[0].Event != 12 || rc.Deviations[0].FromPlace != "synth.c:2" {
		t.Errorf("one row fewer: %+v", rc.Deviations)
	}
	// A rule that chose otherwise in some training run is noted, not held
	// against the run.
	row := m.nodeIndex("row")
	m.CheckCal.Misses[row] = 2
	rc = check(checkRun(101, 12, 11, 2000, rng).done())
	if rc.Deviates() || len(rc.Notes) != 1 || !strings.Contains(rc.Notes[0], "row chose row where the run went to end (once), but the rule did so in 2 of 40 training runs too") {
		t.Errorf("a rule that misfired in training: %+v", rc)
	}
	m.CheckCal.Misses[row] = 0
	rc = check(checkRun(102, 12, 12, 6000, rng).done())
	if len(rc.Deviations) != 1 || rc.Deviations[0].Kind != "time" || rc.Deviations[0].From != "row" || rc.Deviations[0].To != "row" ||
		math.Abs(rc.Deviations[0].Ratio-3) > 0.3 || rc.Deviations[0].P > rc.Alpha || rc.Deviations[0].Count != 11 {
		t.Errorf("rows three times slower: %+v", rc.Deviations)
	}
	// start → end: never seen, and start's rule ("always row") broken.
	s := newSynth(103, "K", 5)
	s.point("start", 0)
	s.point("end", 500)
	rc = check(s.done())
	kinds := ""
	for _, d := range rc.Deviations {
		kinds += d.Kind + ":" + d.From + "→" + d.To + " "
	}
	if kinds != "arc:start→end rule:start→end " {
		t.Errorf("a transition never seen: %s", kinds)
	}
	// A checkpoint at another line of its file: noted, checked.
	moved := checkRun(104, 8, 8, 2000, rng).done()
	moved.Sites[1].Line = 40
	if rc := check(moved); rc.Deviates() || len(rc.Notes) != 1 || !strings.Contains(rc.Notes[0], "row is at synth.c:40, at synth.c:2 in the model") {
		t.Errorf("moved checkpoint: %+v", rc)
	}
	// A model of an older fragprof, without the calibration.
	cal := m.CheckCal
	m.CheckCal = nil
	if _, err := m.CheckRun(checkRun(106, 8, 8, 2000, rng).done(), CheckOptions{Gamma: 0.9}); err == nil || !strings.Contains(err.Error(), "build it again with fragprof model build") {
		t.Errorf("a model without calibration: %v", err)
	}
	m.CheckCal = cal
	for _, c := range []struct {
		edit func(*trace.Trace)
		want string
	}{
		{func(tr *trace.Trace) { tr.Sites[1].Name = "line" }, `checkpoint "line" at synth.c:2 is not in the model (its checkpoints: end, row, start)`},
		{func(tr *trace.Trace) { tr.Sites[1].File = "other.c" }, `checkpoint "row" at other.c:2 is in another file than the model's (synth.c:2)`},
		{func(tr *trace.Trace) { tr.Sites[1].Vars[0].Name = "j" }, `records j, which the model's row does not (it records: i)`},
	} {
		tr := checkRun(105, 8, 8, 2000, rng).done()
		c.edit(tr)
		_, err := m.CheckRun(tr, CheckOptions{Gamma: 0.9})
		var mm *RunMismatch
		if !errors.As(err, &mm) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want a RunMismatch with %q", err, c.want)
		}
	}
}
