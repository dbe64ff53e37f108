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
// event; three times the row time is a time deviation of row → row, tested
// alone (the loop's exit leaves row too, and nothing else is timed); a
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
		math.Abs(rc.Deviations[0].Ratio-3) > 0.3 || rc.Deviations[0].P > rc.Alpha || rc.Deviations[0].Count != 11 || rc.Deviations[0].Relative {
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

// TestCheckReference: the run's speed, a mean of the centred d over the timed
// arcs weighted by their shares, and each arc's reference, the same weighted by
// 1/s² over the other arcs that do not leave its checkpoint, against values
// worked by hand. Arcs: 0 start → a (2% of the time: not timed), 1 a → b (50%,
// scatter s = 0.1), 2 b → a (30%, s = 0.2), 3 b → end (10%, s = 0.05; it leaves
// b as 2 does), 4 c → d (8%, but 5 training runs: not timed).
func TestCheckReference(t *testing.T) {
	m := &Model{Arcs: []ModelArc{{From: 0, To: 2}, {From: 2, To: 3}, {From: 3, To: 2}, {From: 3, To: 1}, {From: 4, To: 5}}}
	m.CheckCal = &CheckCalibration{Arcs: []ArcSpread{
		{Spread: Spread{Runs: 20, Devs: []float64{0.5}}, Share: 0.02},
		{Spread: Spread{Runs: 20, Devs: []float64{0.05, 0.1, 0.3}}, Share: 0.5},
		{Spread: Spread{Runs: 20, Devs: []float64{0.1, 0.3}}, Share: 0.3}, // median 0.2
		{Spread: Spread{Runs: 20, Devs: []float64{0.05}}, Share: 0.1},
		{Spread: Spread{Runs: 5, Devs: []float64{0.01}}, Share: 0.08},
	}}
	dc := []float64{0.5, 0.1, 0.2, -0.1, 0.9}
	near := func(what string, got float64, ok bool, want float64) {
		t.Helper()
		if !ok || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v (%v), want %v", what, got, ok, want)
		}
	}
	v, ok := m.runSpeed(dc)
	near("speed", v, ok, (0.5*0.1+0.3*0.2+0.1*-0.1)/0.9) // 1/9
	r, ok := m.reference(dc, 1, -1)
	near("reference of a → b", r, ok, (25*0.2+400*-0.1)/425) // b → a (1/0.2²) and b → end (1/0.05²)
	r, ok = m.reference(dc, 2, -1)
	near("reference of b → a", r, ok, 0.1) // a → b alone: b → end leaves b too
	r, ok = m.reference(dc, 3, -1)
	near("reference of b → end", r, ok, 0.1)
	r, ok = m.reference(dc, 1, 2)
	near("reference of a → b without b → a", r, ok, -0.1)
	dc[1] = math.NaN() // a run that did not take a → b
	if r, ok := m.reference(dc, 2, -1); ok {
		t.Errorf("reference of b → a without a → b: %v, want none", r)
	}
	v, ok = m.runSpeed(dc)
	near("speed without a → b", v, ok, (0.3*0.2+0.1*-0.1)/0.4)
	// An arc whose d never moved weighs 1/MinCheckScatter², not without bound.
	m.CheckCal.Arcs[3].Devs = []float64{0, 0, 0}
	dc[1] = 0.1
	r, ok = m.reference(dc, 1, -1)
	near("reference of a → b, b → end steady", r, ok, (25*0.2+1e6*-0.1)/(25+1e6))
}

// phaseRun traces a synthetic run of a loop of k iterations in two phases, a →
// b of aNs and b → a of bNs, each transition times a noise of 2% drawn from
// rng, the whole run times the machine's speed factor f.
func phaseRun(trial uint64, k int, aNs, bNs, f float64, rng *rand.Rand) *trace.Trace {
	s := newSynth(trial, "K", k)
	noisy := func(ns float64) int64 { return int64(ns * f * (1 + 0.02*rng.NormFloat64())) }
	s.point("start", 0)
	s.point("a", int64(300*f), "i", 0)
	for i := 0; i < k; i++ {
		s.point("b", noisy(aNs))
		if i+1 < k {
			s.point("a", noisy(bNs), "i", i+1)
		}
	}
	s.point("end", noisy(bNs))
	return s.done()
}

// TestCheckRelative: runs of a loop in two phases, a → b (4 µs, 80% of the
// time: the arc that dominates) and b → a (1 µs), on a machine whose speed
// moves every run by a factor e^N(0, 0.15) — model check against the model of
// 100 such runs. Each arc is tested against the other: a 10% slowdown of a → b
// is caught and named in a run on a machine 10% slower than usual, where the
// arc's time alone lies within its runs' scatter, and b → a, which the change
// moves the other way against the rest of the run, is noted, not named; a run
// 60% slower on both arcs is no deviation but its speed is reported, and
// flagged with Absolute; over 300 unchanged runs the false alarms stay below
// 1 − γ (within the binomial scatter), with or without Absolute.
func TestCheckRelative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	speed := func() float64 { return math.Exp(0.15 * rng.NormFloat64()) }
	var train []*trace.Trace
	for r := 0; r < 100; r++ {
		train = append(train, phaseRun(uint64(r), 20+r%21, 4000, 1000, speed(), rng))
	}
	m := buildNoHoldout(t, train)
	check := func(tr *trace.Trace, absolute bool) *RunCheck {
		t.Helper()
		rc, err := m.CheckRun(tr, CheckOptions{Gamma: 0.9, Absolute: absolute})
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	ab, ba := m.arcIndex("a", "b"), m.arcIndex("b", "a")
	if c := m.CheckCal; !c.timed(ab) || !c.timed(ba) || c.Arcs[ab].Relative == nil || c.Arcs[ab].Relative.Runs != 100 || c.Speed.Runs != 100 {
		t.Fatalf("calibration: a → b %+v, b → a %+v, speed %+v", c.Arcs[ab], c.Arcs[ba], c.Speed)
	}

	// At an input no training run had (41 iterations), so that the formula's
	// test is the one taken (TestCheckPoint for the point test).
	rc := check(phaseRun(1000, 41, 4400, 1000, 1.1, rng), false)
	// The two arcs' tests against each other move together (one's z is the
	// other's, negated): the joint level is near 1 − γ, where Bonferroni's
	// would halve it.
	if len(rc.Deviations) != 1 || rc.ArcsTested != 2 || !rc.Joint || rc.Alpha <= 0.09 || rc.Alpha > 0.1 {
		t.Fatalf("a → b 10%% slower: %+v", rc)
	}
	d := rc.Deviations[0]
	if d.Kind != "time" || d.From != "a" || d.To != "b" || !d.Relative || math.Abs(d.Ratio-1.1) > 0.03 || d.P > rc.Alpha || d.Count != 41 ||
		math.Abs(d.Alone-1.1*1.1) > 0.05 || d.AloneP <= rc.Alpha {
		t.Errorf("a → b 10%% slower: %+v", d)
	}
	if len(rc.Notes) != 1 || !strings.Contains(rc.Notes[0], "time of b → a: 0.9") || !strings.Contains(rc.Notes[0], "as a change of a → b alone makes it: not named") {
		t.Errorf("b → a: notes %q", rc.Notes)
	}
	if rc.Speed == nil || rc.Speed.Kind != "speed" || math.Abs(rc.Speed.Ratio-1.1*math.Pow(1.1, 0.8)) > 0.06 {
		t.Errorf("speed %+v, want about %.3g", rc.Speed, 1.1*math.Pow(1.1, 0.8))
	}

	slow := phaseRun(1001, 30, 4000, 1000, 1.6, rng)
	if rc := check(slow, false); rc.Deviates() || rc.Speed == nil || rc.Speed.P > 0.05 || math.Abs(rc.Speed.Ratio-1.6) > 0.08 || rc.ArcsTested != 2 {
		t.Errorf("a machine 60%% slower: %+v, speed %+v", rc, rc.Speed)
	}
	rc = check(slow, true)
	if len(rc.Deviations) != 1 || rc.Deviations[0].Kind != "speed" || rc.ArcsTested != 3 || !strings.HasPrefix(rc.Deviations[0].String(), "speed of the run: 1.6") {
		t.Errorf("a machine 60%% slower, Absolute: %+v", rc)
	}

	alarms, absAlarms := 0, 0
	const n = 300
	for r := 0; r < n; r++ {
		tr := phaseRun(uint64(2000+r), 20+r%21, 4000, 1000, speed(), rng)
		if check(tr, false).Deviates() {
			alarms++
		}
		if check(tr, true).Deviates() {
			absAlarms++
		}
	}
	// 1 − γ = 10%: 30 of 300 expected at most, binomial sd 5.2.
	if alarms > 40 || absAlarms > 40 {
		t.Errorf("unchanged runs flagged: %d of %d, %d with Absolute; want at most about 10%%", alarms, n, absAlarms)
	}
	t.Logf("unchanged runs flagged: %d of %d, %d with Absolute", alarms, n, absAlarms)
}

// arcIndex is the index of the arc from → to, or −1.
func (m *Model) arcIndex(from, to string) int {
	for i, a := range m.Arcs {
		if m.Nodes[a.From].Name == from && m.Nodes[a.To].Name == to {
			return i
		}
	}
	return -1
}

// TestCheckExplained: the arc named among several flagged, and those it
// explains, on a loop of three timed arcs x → y → z → x (scatter 0.1 each,
// so equal weights; z's training scores 0.01, 0.02, 0.03 about 0, β = 1) at
// α = 0.3 — a score beyond 0.03 has p = 1/4.
func TestCheckExplained(t *testing.T) {
	m := &Model{Arcs: []ModelArc{{From: 2, To: 3}, {From: 3, To: 4}, {From: 4, To: 2}}}
	rel := Spread{Runs: 20, Devs: []float64{0.01, 0.02, 0.03}}
	arc := ArcSpread{Spread: Spread{Runs: 20, Devs: []float64{0.1}}, Share: 0.3, Relative: &rel, Beta: 1}
	m.CheckCal = &CheckCalibration{Arcs: []ArcSpread{arc, arc, arc}}
	all := []bool{true, true, true}
	// x → y 0.2 slower: the others' z are −0.1, flagged, but with x → y left
	// out their reference is the third arc, at 0: explained.
	j, ex := m.explainedBy([]float64{0.2, 0, 0}, []int{0, 1, 2}, all, 0.3)
	if j != 0 || ex[0] || !ex[1] || !ex[2] {
		t.Errorf("one arc slower: named %d, explained %v", j, ex)
	}
	// x → y and y → z both 0.2 slower: the first of the two most unusual
	// alone (p = 1/2) is named; y → z against z → x alone is still 0.2 off,
	// z → x against y → z alone −0.2: neither explained.
	j, ex = m.explainedBy([]float64{0.2, 0.2, 0}, []int{0, 1, 2}, all, 0.3)
	if j != 0 || ex[1] || ex[2] {
		t.Errorf("two arcs slower: named %d, explained %v", j, ex)
	}
	// An arc flagged alone is named when its time alone is the most unusual,
	// and is never explained itself.
	j, ex = m.explainedBy([]float64{0, 0.2, 0}, []int{0, 1}, []bool{false, true}, 0.3)
	if j != 1 || ex[0] || ex[1] {
		t.Errorf("mixed: named %d, explained %v", j, ex)
	}
}

// TestCheckPointScores: the point test's statistic, score and calibration
// against values worked by hand — the lower decile of [5 1 3 2 4] is 1 + 0.4
// = 1.4; the second-nearest of 0.5, 1.2, 0.9, 3 to 1 is 0.2 away, and the
// median of the two nearest 1.05; two input points of five runs each score
// their runs leave one out (point 1: y = 0 … 0.4 → 0.2, 0.1, 0.1, 0.1, 0.2;
// point 2: y = 1, 1, 1, 1, 2 → 0, 0, 0, 0, 1), a point of two runs is
// dropped, and a run at point 1 with y = 0.65 scores 0.35: p = 2/11.
func TestCheckPointScores(t *testing.T) {
	if q := quantile([]float64{5, 1, 3, 2, 4}, PointQuantile); math.Abs(q-1.4) > 1e-12 {
		t.Errorf("lower decile %v, want 1.4", q)
	}
	if s := neighbourScore(1, []float64{0.5, 1.2, 0.9, 3}); math.Abs(s-0.2) > 1e-12 {
		t.Errorf("score %v, want 0.2", s)
	}
	if s := neighbourScore(1, []float64{0.5}); !math.IsInf(s, 1) {
		t.Errorf("score with one other %v, want +Inf", s)
	}
	if c := nearestCentre(1, []float64{0.5, 1.2, 0.9, 3}); math.Abs(c-1.05) > 1e-12 {
		t.Errorf("nearest centre %v, want 1.05", c)
	}
	m := &Model{Arcs: []ModelArc{{From: 2, To: 2}}}
	m.CheckCal = &CheckCalibration{Arcs: []ArcSpread{{Spread: Spread{Runs: 12}, Share: 1}}}
	var inputs, ys [][]float64
	for _, r := range []struct{ in, y float64 }{{1, 0}, {1, 0.1}, {1, 0.2}, {1, 0.3}, {1, 0.4}, {2, 1}, {2, 1}, {2, 1}, {2, 1}, {2, 2}, {3, 5}, {3, 6}} {
		inputs, ys = append(inputs, []float64{r.in}), append(ys, []float64{r.y})
	}
	m.calibratePoints(inputs, ys)
	c := m.CheckCal
	if len(c.Points) != 2 || c.point([]float64{3}) != nil {
		t.Fatalf("points %+v, want inputs 1 and 2", c.Points)
	}
	a := c.Arcs[0]
	want := []float64{0, 0, 0, 0, 0.1, 0.1, 0.1, 0.2, 0.2, 1}
	if a.Point == nil || a.Point.Runs != 10 || a.PointRelative != nil || len(a.Point.Devs) != len(want) {
		t.Fatalf("point spread %+v, relative %+v", a.Point, a.PointRelative)
	}
	for i, w := range want {
		if math.Abs(a.Point.Devs[i]-w) > 1e-12 {
			t.Fatalf("scores %v, want %v", a.Point.Devs, want)
		}
	}
	score, spr, rel, ratio, alone, ok := m.pointTest(c.point([]float64{1}), []float64{0.65}, 0)
	if !ok || rel || spr != a.Point || math.Abs(score-0.35) > 1e-12 || math.Abs(ratio-math.Exp(0.3)) > 1e-12 || ratio != alone {
		t.Fatalf("point test: score %v, ratio %v, alone %v, relative %v, ok %v", score, ratio, alone, rel, ok)
	}
	if p := spr.PValue(score); math.Abs(p-2.0/11) > 1e-12 {
		t.Errorf("p %v, want 2/11", p)
	}
	if _, _, _, _, _, ok := m.pointTest(c.point([]float64{3}), []float64{5.5}, 0); ok {
		t.Error("a run at an input with too few training runs had the point test")
	}
}

// TestCheckPoint: runs of the two-phase loop of TestCheckRelative at five
// inputs, twenty each, on a machine that runs at one of two speeds, 1 or 1.3
// (as the project VM ran matmul), each run's times scattered by 2%. A run at
// a training input whose a → b is 10% slower is flagged by the point test and
// a → b named — at either speed, where its time alone lies between the
// states; over 200 unchanged runs
// the false alarms stay below 1 − γ (within the binomial scatter).
func TestCheckPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	state := func() float64 { return []float64{1, 1.3}[rng.IntN(2)] }
	var train []*trace.Trace
	for r := 0; r < 100; r++ {
		train = append(train, phaseRun(uint64(r), 20+r%5, 4000, 1000, state(), rng))
	}
	m := buildNoHoldout(t, train)
	ab := m.arcIndex("a", "b")
	if c := m.CheckCal; len(c.Points) != 5 || c.Arcs[ab].Point == nil || c.Arcs[ab].Point.Runs != 100 {
		t.Fatalf("points %d, a → b %+v", len(c.Points), c.Arcs[ab])
	}
	check := func(tr *trace.Trace) *RunCheck {
		t.Helper()
		rc, err := m.CheckRun(tr, CheckOptions{Gamma: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	for _, f := range []float64{1, 1.3} {
		rc := check(phaseRun(1000, 22, 4400, 1000, f, rng))
		if len(rc.Deviations) != 1 {
			t.Fatalf("a → b 10%% slower at speed %v: %+v", f, rc)
		}
		d := rc.Deviations[0]
		if d.Kind != "time" || d.From != "a" || d.To != "b" || !d.Point || d.P > rc.Alpha || d.Ratio <= 1.03 ||
			!strings.Contains(d.String(), "the nearest training runs' at its inputs") {
			t.Errorf("a → b 10%% slower at speed %v: %+v", f, d)
		}
	}
	alarms := 0
	const n = 200
	for r := 0; r < n; r++ {
		if check(phaseRun(uint64(2000+r), 20+r%5, 4000, 1000, state(), rng)).Deviates() {
			alarms++
		}
	}
	// 1 − γ = 10%: 20 of 200 expected at most, binomial sd 4.2.
	if alarms > 28 {
		t.Errorf("unchanged runs flagged: %d of %d; want at most about 10%%", alarms, n)
	}
	t.Logf("unchanged runs flagged: %d of %d", alarms, n)
}
