package predict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/predict/regress"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/trace"
)

// synth writes a trace by hand: the tests' journals are made of these.
type synth struct {
	t     *trace.Trace
	th    *trace.Thread
	sites map[string]int
	now   int64
}

func newSynth(trial uint64, inputs ...any) *synth {
	t := &trace.Trace{Name: fmt.Sprintf("synth-%d", trial), Finished: true, Clock: trace.Monotonic, NsPerTick: 1}
	t.Header.Trial = trial
	t.Header.Status = "exit status 0"
	for i := 0; i+1 < len(inputs); i += 2 {
		t.Header.Inputs = append(t.Header.Inputs, trace.Input{Name: inputs[i].(string), Kind: "float", Value: toF(inputs[i+1])})
	}
	t.Threads = []trace.Thread{{Off: []int32{0}}}
	return &synth{t: t, th: &t.Threads[0], sites: map[string]int{}}
}

func toF(x any) float64 {
	switch v := x.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	panic("toF")
}

// point passes checkpoint name dt ns after the previous one, recording vars given
// as name, value pairs.
func (s *synth) point(name string, dt int64, vars ...any) {
	var names []string
	var vals []float64
	for i := 0; i+1 < len(vars); i += 2 {
		names = append(names, vars[i].(string))
		vals = append(vals, toF(vars[i+1]))
	}
	key := name + "|" + strings.Join(names, ",")
	id, ok := s.sites[key]
	if !ok {
		site := trace.Site{ID: uint32(len(s.t.Sites) + 1), Name: name, File: "synth.c", Line: len(s.t.Sites) + 1}
		for _, n := range names {
			site.Vars = append(site.Vars, trace.Var{Name: n, Kind: trace.Double})
		}
		s.t.Sites = append(s.t.Sites, site)
		id = len(s.t.Sites) - 1
		s.sites[key] = id
	}
	s.now += dt
	s.th.Time = append(s.th.Time, s.now)
	s.th.Site = append(s.th.Site, int32(id))
	s.th.Vals = append(s.th.Vals, vals...)
	s.th.Off = append(s.th.Off, int32(len(s.th.Vals)))
	s.t.Events++
}

func (s *synth) done() *trace.Trace { return s.t }

// buildNoHoldout learns from traces with every run.
func buildNoHoldout(t *testing.T, traces []*trace.Trace) *Model {
	t.Helper()
	opt := DefaultOptions
	opt.Holdout = 0
	m, err := Build(traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

func ruleText(m *Model, node string) string {
	for i, n := range m.Nodes {
		if n.Name == node {
			return strings.Join(m.RuleLines(i), "; ")
		}
	}
	return "no node " + node
}

// TestRuleInduction learns rules from hand-made journals whose transitions follow a
// known law, and checks the rule found and that it predicts new states right.
func TestRuleInduction(t *testing.T) {
	type tc struct {
		name  string
		runs  func(r *rand.Rand, k int) *trace.Trace
		node  string
		want  []string // substrings of the printed rule
		check func(t *testing.T, m *Model)
	}
	cases := []tc{
		{
			// A counted loop: L repeats n times, n an input of the run.
			name: "counter threshold",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				n := 2 + r.IntN(30)
				s := newSynth(uint64(k), "n", n)
				s.point("begin", 10)
				for i := 0; i < n; i++ {
					s.point("L", 100)
				}
				s.point("end", 100)
				return s.done()
			},
			node: "L",
			want: []string{"L → L when #L < $n", "L → end otherwise"},
			check: func(t *testing.T, m *Model) {
				for _, n := range []float64{1, 7, 200} {
					p, err := m.Predict(map[string]float64{"n": n}, PredictOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if p.Visits["L"] != n {
						t.Errorf("n=%v: L visited %v times, want %v", n, p.Visits["L"], n)
					}
				}
			},
		},
		{
			// A doubling loop, as a bottom-up merge sort's passes: w = 1, 2, 4, …
			// while w < n, recorded at the header before the body doubles it, so
			// the header continues while 2·w < n — w / $n < 0.5, which no
			// difference w − $n separates over several n. The passes at n far
			// beyond training are ⌈log₂ n⌉; the threshold snaps to 1/2, the simplest
			// fraction between the ratios seen on either side.
			name: "ratio threshold",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				n := 1000 + r.IntN(9000)
				s := newSynth(uint64(k), "n", n)
				s.point("start", 10)
				for w := 1; w < n; w *= 2 {
					s.point("pass", 100, "w", w)
				}
				s.point("end", 10)
				return s.done()
			},
			node: "pass",
			want: []string{"pass → pass when w / $n ≤ 0.5", "pass → end otherwise"},
			check: func(t *testing.T, m *Model) {
				for _, n := range []float64{3000, 8193, 100000, 1<<20 + 1, 1e7 + 1} {
					p, err := m.Predict(map[string]float64{"n": n}, PredictOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if want := math.Ceil(math.Log2(n)); p.Visits["pass"] != want {
						t.Errorf("n=%v: %v passes, want %v", n, p.Visits["pass"], want)
					}
				}
			},
		},
		{
			// Equalities: x = 3 goes to B, x = 5 to D, anything else to C. However
			// the list is ordered, single values must appear as equalities.
			name: "equality",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				s := newSynth(uint64(k))
				for i := 0; i < 40; i++ {
					x := r.IntN(9)
					s.point("A", 10, "x", x)
					switch x {
					case 3:
						s.point("B", 10)
					case 5:
						s.point("D", 10)
					default:
						s.point("C", 10)
					}
				}
				return s.done()
			},
			node: "A",
			want: []string{"x = "},
			check: decisions("A", 0, 8, func(x int) string {
				switch x {
				case 3:
					return "B"
				case 5:
					return "D"
				}
				return "C"
			}),
		},
		{
			// A threshold on a float: converged when err < 1e-6.
			name: "float threshold",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				s := newSynth(uint64(k))
				err := 1.0
				for err >= 1e-6 {
					s.point("iter", 50, "err", err)
					err *= 0.05 + 0.4*r.Float64()
				}
				s.point("iter", 50, "err", err)
				s.point("done", 10)
				return s.done()
			},
			node: "iter",
			want: []string{"err ≥ ", "otherwise"},
			check: func(t *testing.T, m *Model) {
				// The threshold lies between the largest err that stopped and the
				// smallest that went on: on a log scale near 1e-6.
				r := m.Rules[m.nodeIndex("iter")]
				var th float64
				for _, c := range r.Conds {
					for _, p := range c.Pieces {
						if p.Lo != nil {
							th = *p.Lo
						}
						if p.Hi != nil {
							th = *p.Hi
						}
					}
				}
				if th < 1e-7 || th > 1e-5 {
					t.Errorf("threshold %g, want within a decade of 1e-6", th)
				}
			},
		},
		{
			// A disjunction: x < 10 or x > 90 goes to B.
			name: "disjunction",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				s := newSynth(uint64(k))
				for i := 0; i < 60; i++ {
					x := r.IntN(101)
					s.point("A", 10, "x", x)
					if x < 10 || x > 90 {
						s.point("B", 10)
					} else {
						s.point("C", 10)
					}
				}
				return s.done()
			},
			node: "A",
			// Either "B when x ≤ 9 or x ≥ 91" or its complement "C when x ≥ 10 and
			// x ≤ 90; B otherwise": both are right.
			want: []string{"x ≥ 10", "x ≤ 90"},
			check: decisions("A", 0, 100, func(x int) string {
				if x < 10 || x > 90 {
					return "B"
				}
				return "C"
			}),
		},
		{
			// An arithmetic progression: x ≡ 1 (mod 3) goes to B.
			name: "arithmetic progression",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				s := newSynth(uint64(k))
				for i := 0; i < 60; i++ {
					x := r.IntN(60)
					s.point("A", 10, "x", x)
					if x%3 == 1 {
						s.point("B", 10)
					} else {
						s.point("C", 10)
					}
				}
				return s.done()
			},
			node: "A",
			want: []string{"x ≡ 1 (mod 3)"},
			check: decisions("A", 0, 200, func(x int) string {
				if x%3 == 1 {
					return "B"
				}
				return "C"
			}),
		},
		{
			// A geometric progression: powers of two go to B.
			name: "geometric progression",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				s := newSynth(uint64(k))
				for i := 0; i < 60; i++ {
					x := 1 + r.IntN(1024)
					if r.IntN(3) == 0 {
						x = 1 << r.IntN(11)
					}
					s.point("A", 10, "x", x)
					if x&(x-1) == 0 {
						s.point("B", 10)
					} else {
						s.point("C", 10)
					}
				}
				return s.done()
			},
			node: "A",
			want: []string{"x = 1·2^k"},
			check: decisions("A", 1, 5000, func(x int) string {
				if x&(x-1) == 0 {
					return "B"
				}
				return "C"
			}),
		},
		{
			// Nothing decides: B with probability 0.3.
			name: "probabilistic residual",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				s := newSynth(uint64(k))
				for i := 0; i < 100; i++ {
					s.point("A", 10, "x", r.Float64())
					if r.Float64() < 0.3 {
						s.point("B", 10)
					} else {
						s.point("C", 10)
					}
				}
				return s.done()
			},
			node: "A",
			want: []string{"with probability"},
			check: func(t *testing.T, m *Model) {
				// 3000 choices: the share's standard error is √(0.3·0.7/3000) =
				// 0.0084; ±0.04 is almost 5 of them.
				r := m.Rules[m.nodeIndex("A")]
				for _, s := range r.Residual {
					if m.Nodes[m.Arcs[s.Arc].To].Name == "B" && math.Abs(s.P-0.3) > 0.04 {
						t.Errorf("P(B) = %.3f, want 0.3 ± 0.04", s.P)
					}
				}
			},
		},
		{
			// A loop stopped by the data: trip count uniform in 1..i+1 at outer
			// position i, as in insertion sort. A trip rule with T ≈ 1 + i/2.
			name: "trip rule",
			runs: func(r *rand.Rand, k int) *trace.Trace {
				s := newSynth(uint64(k))
				n := 100 + r.IntN(100)
				for i := 1; i < n; i++ {
					s.point("outer", 50, "i", i)
					trips := 1 + r.IntN(i+1)
					for j := 0; j < trips; j++ {
						s.point("inner", 5)
					}
				}
				s.point("end", 5)
				return s.done()
			},
			node: "inner",
			want: []string{"while #inner < T"},
			check: func(t *testing.T, m *Model) {
				r := m.Rules[m.nodeIndex("inner")]
				f := r.Trip.Count
				// E[T | i] = 1 + i/2: the fitted slope of i must be near 1/2. With
				// ~30·150 episodes of variance ~i²/12, the slope's standard error is
				// ~0.005; ±0.05 is generous.
				slope := 0.0
				for k, term := range f.Terms {
					if len(term) > 0 && f.Vars[0] == "i" && term[0] == 1 && termDegree(term) == 1 {
						slope = f.Coef[k]
					}
				}
				if math.Abs(slope-0.5) > 0.05 {
					t.Errorf("trip count %s: slope of i %.3f, want 0.5 ± 0.05", f.String(), slope)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 11))
			var traces []*trace.Trace
			for k := 0; k < 30; k++ {
				traces = append(traces, c.runs(r, k))
			}
			m := buildNoHoldout(t, traces)
			got := ruleText(m, c.node)
			t.Logf("rule of %s: %s", c.node, got)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("rule of %s:\n  %s\nwant it to contain %q", c.node, got, w)
				}
			}
			if c.check != nil {
				c.check(t, m)
			}
		})
	}
}

// termDegree is the total degree of a polynomial term's exponents.
func termDegree(t []int) int {
	d := 0
	for _, e := range t {
		d += e
	}
	return d
}

// decisions checks that node decides every x in [lo, hi] (its only variable) as want
// says, beyond the values seen too: the rule must generalise.
func decisions(node string, lo, hi int, want func(x int) string) func(t *testing.T, m *Model) {
	return func(t *testing.T, m *Model) {
		t.Helper()
		n := m.nodeIndex(node)
		bad := 0
		for x := lo; x <= hi; x++ {
			st := make([]float64, m.space.Len())
			st[m.space.VarIndex(0)] = float64(x)
			arc, ok := m.decideDet(n, st, nil)
			if !ok {
				t.Fatalf("x = %d: the rule of %s is not deterministic", x, node)
			}
			if got := m.Nodes[m.Arcs[arc].To].Name; got != want(x) && bad < 5 {
				t.Errorf("x = %d goes to %s, want %s", x, got, want(x))
				bad++
			}
		}
	}
}

func (m *Model) nodeIndex(name string) int {
	for i, n := range m.Nodes {
		if n.Name == name {
			return i
		}
	}
	return -1
}

// TestFastForward: skipping through self loops gives the same prediction as
// stepping through every iteration, for deterministic and probabilistic loops.
func TestFastForward(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var traces []*trace.Trace
	for k := 0; k < 30; k++ {
		n := 5 + r.IntN(50)
		s := newSynth(uint64(k), "n", n)
		s.point("begin", 10)
		for i := 0; i < n; i++ {
			s.point("L", 100)
			// a loop of random length: the probabilistic residual
			for r.Float64() < 0.8 {
				s.point("R", 3)
			}
			for j := 0; j < n; j++ {
				s.point("K", 7)
			}
		}
		s.point("end", 10)
		traces = append(traces, s.done())
	}
	m := buildNoHoldout(t, traces)
	in := map[string]float64{"n": 300}
	fast, err := m.Predict(in, PredictOptions{Runs: 200, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.ff {
		m.ff[i].ok = false
	}
	slow, err := m.Predict(in, PredictOptions{Runs: 200, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	// K is deterministic: exactly n² visits both ways.
	if fast.Visits["K"] != 300*300 || slow.Visits["K"] != 300*300 {
		t.Errorf("K visits: fast %v, slow %v, want 90000", fast.Visits["K"], slow.Visits["K"])
	}
	if fast.Steps >= slow.Steps/10 {
		t.Errorf("fast-forward took %d steps, stepping %d: expected far fewer", fast.Steps, slow.Steps)
	}
	// R: geometric, mean 0.8/0.2 = 4 per L, 1200 per run; the mean of 200 runs has
	// a standard error of √(300·20)/√200 ≈ 5.5 (variance of a geometric count:
	// 0.8/0.04 = 20 per L). Two independent means: 6 standard errors of their
	// difference is ±47.
	if d := math.Abs(fast.Visits["R"] - slow.Visits["R"]); d > 47 {
		t.Errorf("R visits: fast %.1f, slow %.1f", fast.Visits["R"], slow.Visits["R"])
	}
	if math.Abs(fast.TimeNs-slow.TimeNs) > 0.01*slow.TimeNs {
		t.Errorf("time: fast %.0f, slow %.0f", fast.TimeNs, slow.TimeNs)
	}
}

// TestModelRoundTrip: a model written and read back predicts the same.
func TestModelRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var traces []*trace.Trace
	for k := 0; k < 20; k++ {
		n := 3 + r.IntN(20)
		s := newSynth(uint64(k), "n", n, "a", 0.01+0.04*r.Float64())
		a, _ := s.t.Input("a")
		y := 1.0
		s.point("start", 10, "y", y)
		for i := 0; i < n; i++ {
			s.point("step", int64(20+n), "y", y)
			y += a * (2 - y)
		}
		s.point("end", 5, "y", y)
		traces = append(traces, s.done())
	}
	opt := DefaultOptions
	opt.Fit.Family = regress.AutoFamily
	m, err := Build(traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	m2, err := Parse("model.json", strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	var buf2 strings.Builder
	if err := m2.Write(&buf2); err != nil {
		t.Fatal(err)
	}
	if buf.String() != buf2.String() {
		t.Errorf("write → parse → write changed the model")
	}
	// The same traces give the same model, to the last digit (sums taken in map
	// order once differed from build to build), but for the timings of the build
	// itself.
	timings := regexp.MustCompile(`"(build_seconds|predict_ns)": [0-9.e+-]+`)
	for k := 0; k < 10; k++ {
		m3, err := Build(traces, opt)
		if err != nil {
			t.Fatal(err)
		}
		var buf3 strings.Builder
		if err := m3.Write(&buf3); err != nil {
			t.Fatal(err)
		}
		if timings.ReplaceAllString(buf3.String(), "") != timings.ReplaceAllString(buf.String(), "") {
			t.Fatalf("build %d of the same traces wrote another model", k+2)
		}
	}
	in := map[string]float64{"n": 40, "a": 0.03}
	p1, err := m.Predict(in, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := m2.Predict(in, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p1.TimeNs != p2.TimeNs || p1.Vars["y"] != p2.Vars["y"] {
		t.Errorf("read-back model predicts %v, %v; the original %v, %v", p2.TimeNs, p2.Vars["y"], p1.TimeNs, p1.Vars["y"])
	}
	// The data rule of the loop is exact: the final y is the recurrence's.
	y := 1.0
	for i := 0; i < 40; i++ {
		y += 0.03 * (2 - y)
	}
	if math.Abs(p1.Vars["y"]-y) > 1e-12*math.Abs(y) {
		t.Errorf("final y = %.17g, want %.17g", p1.Vars["y"], y)
	}
	// Errors name the place.
	if _, err := Parse("bad.model", strings.NewReader(`{"format":"fragprof-model","version":9}`)); err == nil || !strings.Contains(err.Error(), "bad.model") {
		t.Errorf("bad version: %v", err)
	}
}

// TestClustering: an atypical run is dropped before averaging.
func TestClustering(t *testing.T) {
	var rs []*runResult
	for _, v := range []float64{100, 101, 99, 102, 98, 100, 5000} {
		rs = append(rs, &runResult{time: v})
	}
	kept := keepLargestCluster(rs)
	var times []float64
	for _, r := range kept {
		times = append(times, r.time)
	}
	sort.Float64s(times)
	if len(times) != 6 || times[len(times)-1] != 102 {
		t.Errorf("kept %v, want the six near 100", times)
	}
}

// TestRepeatedRuns: input points run several times (fragprof trace --repeat), some
// runs slowed as a whole as on a shared machine. The held-out split keeps a
// point's runs together, the evaluation compares with each point's median run and
// reports the truth's own scatter, a nuisance input (--vary) is not a feature, and
// the model predicts the typical run, not the mean the slowed runs pull up.
func TestRepeatedRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	slow := []float64{1, 1, 1, 1.2, 1.5} // run r's slowdown, the same at every point
	const points = 12
	var traces []*trace.Trace
	for r, f := range slow {
		for k := 0; k < points; k++ {
			n := 20 + 7*k
			s := newSynth(uint64(k), "n", n, "s", 1000*r+k)
			s.t.Header.Seed = 1
			s.t.Header.Rep = r
			s.t.Header.Vary = []string{"s"}
			s.point("start", 10)
			for i := 0; i < n; i++ {
				// 5 µs + 20 ns·n per step, ±1% of row noise.
				dt := (5000 + 20*float64(n)) * f * (1 + 0.02*(rng.Float64()-0.5))
				s.point("step", int64(dt))
			}
			s.point("end", 10)
			traces = append(traces, s.done())
		}
	}
	opt := DefaultOptions
	opt.Holdout = 0.25
	m, err := Build(traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Inputs, ",") != "n" {
		t.Errorf("model inputs %v, want [n]: s is drawn anew in every repetition", m.Inputs)
	}
	ev := m.Evaluation
	if m.Training.Points != 9 || m.Training.Runs != 45 || ev.Runs != 3 || ev.RunsPerPoint != 5 {
		t.Fatalf("training %d points, %d runs; held out %d points, %.3g runs each: want 9, 45; 3, 5",
			m.Training.Points, m.Training.Runs, ev.Runs, ev.RunsPerPoint)
	}
	for _, row := range ev.Rows {
		if len(row.TimesNs) != 5 || row.ActualNs != stats.Median(append([]float64(nil), row.TimesNs...)) {
			t.Errorf("trial %d: actual %v is not the median of %v", row.Trial, row.ActualNs, row.TimesNs)
		}
	}
	// One run in five is 20% slow, one 50%: a run lies 14% from its point's
	// median on average, and the median of 5 is known to ±1.25²·14%/√5.
	if math.Abs(ev.TruthScatter-0.14) > 0.01 || math.Abs(ev.TruthError-1.2533*1.2533*ev.TruthScatter/math.Sqrt(5)) > 1e-9 {
		t.Errorf("truth scatter %.4g, error %.4g; want 0.14 and 1.2533²·0.14/√5", ev.TruthScatter, ev.TruthError)
	}
	// The typical run: the median's time within the row noise. The mean of the
	// runs is 14% above it; a model of the mean would be that far off.
	if ev.MAPE > 0.01 {
		t.Errorf("time MAPE %.3g against the median run, want ≤ 1%%", ev.MAPE)
	}
	if ev.SingleMAPE < 0.08 {
		t.Errorf("MAPE against single runs %.3g: the slowed runs should be far from the prediction", ev.SingleMAPE)
	}
	if !(m.TimeScale > 0.95 && m.TimeScale < 1.05) {
		t.Errorf("time scale %v: the formulas fit the typical run already", m.TimeScale)
	}
}

// TestUntracedUnknown: when the checkpoints' own cost is (nearly) all of the
// predicted time, the time without them is unknown — NaN, "unknown" in the text
// (and advise falls back on the traced time: internal/predict/advise) — never a
// clamped zero.
func TestUntracedUnknown(t *testing.T) {
	m := buildNoHoldout(t, loopTraces(20, 10, 20))
	in := map[string]float64{"n": 40}
	for _, tc := range []struct {
		overhead float64
		unknown  bool
	}{{1, false}, {25, true}} {
		m.Training.OverheadNs = tc.overhead
		p, err := m.Predict(in, PredictOptions{Runs: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := p.WriteText(&text, m); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.unknown && (!math.IsNaN(p.UntracedNs) || !strings.Contains(text.String(), "unknown")):
			t.Errorf("overhead %g: untraced %v of %v, text %q", tc.overhead, p.UntracedNs, p.TimeNs, text.String())
		case !tc.unknown && (math.IsNaN(p.UntracedNs) || p.UntracedNs <= 0 || p.UntracedNs >= p.TimeNs):
			t.Errorf("overhead %g: untraced %v of %v", tc.overhead, p.UntracedNs, p.TimeNs)
		}
	}
}

// TestEvalNonFinite: a data rule fitted inside the training range (w := 2·w, one
// pass per unit of n) that overflows beyond it — the program caps w, the model
// cannot know — makes the predicted final w +Inf at n = 2000. The evaluation
// counts those runs apart and the model file is still written (it once failed
// with "json: unsupported value: +Inf").
func TestEvalNonFinite(t *testing.T) {
	run := doublingRun
	var train, test []*trace.Trace
	for k := 0; k < 20; k++ {
		train = append(train, run(uint64(k), 5+k))
	}
	test = append(test, run(100, 2000), run(101, 12))
	opt := DefaultOptions
	opt.Holdout = 0
	opt.Test = [][]*trace.Trace{test}
	m, err := Build(train, opt)
	if err != nil {
		t.Fatal(err)
	}
	var ve *VarError
	for i := range m.Evaluation.Vars {
		if m.Evaluation.Vars[i].Var == "w" {
			ve = &m.Evaluation.Vars[i]
		}
	}
	if ve == nil {
		t.Fatalf("no error of the final w in %+v", m.Evaluation.Vars)
	}
	if ve.NonFinite != 1 || ve.MaxModel > 1e-9 {
		t.Errorf("final w: %d predictions not finite (want 1: n = 2000), max error of the others %.3g (want exact at n = 12)", ve.NonFinite, ve.MaxModel)
	}
	var b strings.Builder
	if err := m.Write(&b); err != nil {
		t.Fatalf("writing the model: %v", err)
	}
	var out strings.Builder
	if err := m.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1 runs' predictions not finite") {
		t.Errorf("model show does not say that a prediction diverged:\n%s", out.String())
	}
}

// doublingRun is the trace of a loop of n passes whose variable w doubles at each
// (w = 2^i, held at 1e300 so the trace stays finite): its data formula w := 2·w
// overflows a float64 on the 1,025th pass: transition 1,027, after START → start
// and start → pass.
func doublingRun(trial uint64, n int) *trace.Trace {
	s := newSynth(trial, "n", n)
	s.point("start", 10)
	w := 1.0
	for i := 0; i < n; i++ {
		s.point("pass", 100, "w", w)
		w = math.Min(2*w, 1e300)
	}
	s.point("end", 10)
	return s.done()
}

// TestPredictDiverged: a data formula that overflows on an input far beyond the
// training range is named, with the transition where it did, and the value it
// reaches is "unknown" in text and 0 in JSON — never NaN printed as a number or a
// JSON encoder's failure.
func TestPredictDiverged(t *testing.T) {
	var train []*trace.Trace
	for k := 0; k < 20; k++ {
		train = append(train, doublingRun(uint64(k), 5+k))
	}
	m := buildNoHoldout(t, train)
	p, err := m.Predict(map[string]float64{"n": 12}, PredictOptions{})
	if err != nil || p.Diverged != "" || math.Abs(p.Vars["w"]/2048-1) > 1e-9 {
		t.Fatalf("n = 12: w = %v, diverged %q, %v; want w = 2048 and nothing diverged", p.Vars["w"], p.Diverged, err)
	}
	p, err = m.Predict(map[string]float64{"n": 2000}, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Diverged, "w becomes +Inf at transition 1027 (pass → pass)") {
		t.Errorf("n = 2000: diverged %q, want w named where it overflows", p.Diverged)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("JSON of a diverged prediction: %v", err)
	}
	var back struct {
		Vars     map[string]float64 `json:"vars"`
		Diverged string             `json:"diverged"`
	}
	if err := json.Unmarshal(out, &back); err != nil || back.Vars["w"] != 0 || back.Diverged != p.Diverged {
		t.Errorf("JSON %s: want w 0 and the divergence named (%v)", out, err)
	}
	var text strings.Builder
	if err := p.WriteText(&text, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"w = unknown (+Inf: diverged)", "warning: the model's formulas diverge on this input: w becomes +Inf"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

// TestPredictBadInputs: an input that is not a finite number, or beyond 2⁵³ where a
// loop counter it drives could no longer step, is refused by name before the model
// runs — not reported as a loop that never ends.
func TestPredictBadInputs(t *testing.T) {
	m := buildNoHoldout(t, loopTraces(20, 5, 100))
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e18, -1e300} {
		_, err := m.Predict(map[string]float64{"n": v}, PredictOptions{Runs: 2, Seed: 1})
		if err == nil || errors.Is(err, ErrNoEnd) || !strings.HasPrefix(err.Error(), "input n = ") {
			t.Errorf("n = %v: %v, want input n refused", v, err)
		}
	}
	if _, err := m.Predict(map[string]float64{"n": 1000}, PredictOptions{Runs: 2, Seed: 1}); err != nil {
		t.Errorf("n = 1000: %v", err)
	}
}

// loopTraces returns the traces of runs runs of a loop of n iterations of dt ns each,
// n = first, first+1, ...: the input n, the checkpoints begin, L and end.
func loopTraces(runs, first int, dt int64) []*trace.Trace {
	var traces []*trace.Trace
	for k := 0; k < runs; k++ {
		n := first + k
		s := newSynth(uint64(k), "n", n)
		s.point("begin", 10)
		for i := 0; i < n; i++ {
			s.point("L", dt)
		}
		s.point("end", 10)
		traces = append(traces, s.done())
	}
	return traces
}
