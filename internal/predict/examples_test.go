//go:build integration

package predict

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/predict/selection"
	"github.com/fragprof/fragprof/internal/trace"
)

// The examples of examples/predict, traced for real and modelled. Times are measured
// with the thread CPU clock (--clock thread): this test runs on shared, loaded
// machines, where a trial's wall time may triple when another program takes its
// processor; a thread's own CPU time does not. Each checkpoint then costs about
// 1–2 µs (a system call), part of the traced time the model predicts, so the
// examples are run with enough work between checkpoints for it not to dominate.

var (
	exampleDir  string
	exampleOnce sync.Once
	toolchain   *build.Toolchain
)

func exampleTmp(t *testing.T) string {
	t.Helper()
	exampleOnce.Do(func() {
		d, err := os.MkdirTemp("", "fragprof-predict-test")
		if err != nil {
			panic(err)
		}
		exampleDir = d
		tc, err := build.FindToolchain()
		if err != nil {
			panic(fmt.Sprintf("the prediction tests need clang: %v", err))
		}
		toolchain = tc
	})
	return exampleDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if exampleDir != "" {
		os.RemoveAll(exampleDir)
	}
	os.Exit(code)
}

// traceExample builds examples/predict/name with fragprof and runs trials of it.
func traceExample(t *testing.T, name string, inputs []string, stdin string, trials uint64, clock string) []*trace.Trace {
	t.Helper()
	root := exampleTmp(t)
	dir, err := os.MkdirTemp(root, name)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "examples", "predict", name)
	bin := filepath.Join(dir, "prog")
	var msg bytes.Buffer
	if _, err := toolchain.Build(context.Background(), &msg, build.Spec{Sources: []string{src}}, dir, bin); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, msg.String())
	}
	model, err := dist.Parse(strings.Join(inputs, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := dist.ParseTemplate(stdin, model, dist.BackslashEscapes)
	if err != nil {
		t.Fatal(err)
	}
	col := &trace.Collector{Binary: bin, Program: name, Inputs: &dist.File{Model: model, Stdin: tmpl},
		Seed: 1, Dir: dir, Clock: clock}
	var out []*trace.Trace
	err = col.Run(context.Background(), 0, trials, 1, func(r trace.Result) error {
		if r.Err != nil {
			return r.Err
		}
		if r.Header.ExitCode != 0 {
			return fmt.Errorf("trial %d: %s", r.Header.Trial, r.Header.Status)
		}
		var b bytes.Buffer
		if err := trace.Write(&b, r.Header, r.Extra); err != nil {
			return err
		}
		tr, err := trace.Parse(fmt.Sprintf("%s trial %d", name, r.Header.Trial), b.Bytes())
		if err != nil {
			return err
		}
		out = append(out, tr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func buildModel(t *testing.T, traces []*trace.Trace) *Model {
	t.Helper()
	m, err := Build(traces, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	m.WriteText(&b)
	t.Logf("%s", b.String())
	return m
}

// TestExamples checks, per example, the structure the model must find (exactly:
// rules, data rules, numbers of checkpoints passed) and, through checkTime, that
// the predicted times are honest.
//
// The numbers of checkpoints passed carry no timing noise: they are held to 1–10%.
// Times are another matter. On a quiet machine the examples' held-out MAPE is
// 1–5%; on a shared CI machine the thread clock still sees other programs' cache
// and memory traffic, and a run of matmul scattered by 40% around the fit (R²
// 0.25 on its per-row time). A fixed bound on the time MAPE then tests the
// machine, not the model. checkTime holds instead what must be true whatever
// the noise: the model is not worse than the direct baseline fitted to the same
// noisy runs, its 90% intervals hold the held-out runs, and it is not off by a
// factor (which a wrong structure would be).
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and traces five C programs (~30 s); skipped with -short")
	}
	t.Run("brusselator", func(t *testing.T) {
		ts := traceExample(t, "brusselator.c", []string{"K = choice(1, 2, 4, 8, 16, 32, 48)"}, `{K}\n`, 40, "thread")
		m := buildModel(t, ts)
		wantRule(t, m, "row", "row → row when #row < $K")
		ev := m.Evaluation
		if ev.EventsMAPE > 0.01 {
			t.Errorf("checkpoints passed: MAPE %.3g, want exact (≤ 1%%)", ev.EventsMAPE)
		}
		checkTime(t, ev)
		// K rows of K integrations each: beyond the training range the structure is
		// exact — K = 100 passes the row checkpoint 100 times — and the time grows
		// as K², (100/48)² = 4.34 times K = 48's. The time's exponent is fitted to
		// noisy runs (on a loaded CI machine the chosen power law took K^1.85, a
		// ratio of 3.89), so the time is held only to the right order, between
		// K^1.2 and K^2.8: a model linear or cubic in K fails.
		p100 := predictT(t, m, map[string]float64{"K": 100})
		p48 := predictT(t, m, map[string]float64{"K": 48})
		if v := p100.Visits["row"]; math.Abs(v-100) > 0.5 {
			t.Errorf("row visits at K = 100: %.2f, want 100", v)
		}
		lo, hi := math.Pow(100.0/48, 1.2), math.Pow(100.0/48, 2.8)
		if r := p100.TimeNs / p48.TimeNs; r < lo || r > hi {
			t.Errorf("time(100)/time(48) = %.3f, want %.2f…%.2f (K² gives %.2f)", r, lo, hi, 100.0*100/(48*48))
		}
	})
	t.Run("matmul", func(t *testing.T) {
		// Not up to 128: there the columns of b alias in the cache and a row
		// costs 2.5 times as much per product (0.93 ns instead of 0.38 on the
		// test machine), a cliff no smooth model of n follows.
		ts := traceExample(t, "matmul.c", []string{"n = uniform_int(60, 125)"}, `{n}\n`, 30, "thread")
		m := buildModel(t, ts)
		wantRule(t, m, "row", "row → row when #row < $n")
		if m.Evaluation.EventsMAPE > 0.01 {
			t.Errorf("checkpoints passed: MAPE %.3g, want exact", m.Evaluation.EventsMAPE)
		}
		checkTime(t, m.Evaluation)
	})
	t.Run("insertion sort", func(t *testing.T) {
		ts := traceExample(t, "insertion_sort.c", []string{"n = uniform_int(50, 250)", "s = uniform_int(1, 1000000)"},
			`{n} {s}\n`, 30, "thread")
		m := buildModel(t, ts)
		r := m.Rules[m.nodeIndex("inner")]
		if r.Trip == nil {
			t.Fatalf("no trip rule at inner: %s", ruleText(m, "inner"))
		}
		// The inner loop runs 1 + (the number of larger elements before a[i]) times:
		// uniform on 1…i+1 for random data, mean 1 + i/2. The fitted count at i =
		// 150 must be near 76: its standard error over ~3000 episodes is below 2.
		st := make([]float64, m.space.Len())
		st[m.space.VarIndex(slices.Index(m.Vars, "i"))] = 150
		if err := r.Trip.Count.Compile(m.space); err != nil {
			t.Fatal(err)
		}
		if c := r.Trip.Count.Eval(st); math.Abs(c-76) > 8 {
			t.Errorf("trip count at i = 150: %.1f, want 76 ± 8 (%s)", c, r.Trip.Count.String())
		}
		// Inner visits: n²/4 on average, but each run's own data differ from the
		// mean: for n ≈ 150 the count's relative standard deviation is about
		// √(n³/36)/(n²/4) ≈ 5%. The MAPE over 6 runs stays below 10%.
		if m.Evaluation.EventsMAPE > 0.10 {
			t.Errorf("checkpoints passed: MAPE %.3g > 10%%", m.Evaluation.EventsMAPE)
		}
		checkTime(t, m.Evaluation)
	})
	t.Run("euler lag", func(t *testing.T) {
		ts := traceExample(t, "euler_lag.c", []string{"y0 = uniform(-1, 1)", "u = uniform(0, 2)",
			"a = uniform(0.001, 0.05)", "N = uniform_int(50, 400)"}, `{y0:%.17g} {u:%.17g} {a:%.17g} {N}\n`, 30, "tsc")
		m := buildModel(t, ts)
		wantRule(t, m, "step", "step → step when #step < $N")
		var ve VarError
		for _, v := range m.Evaluation.Vars {
			if v.Var == "y" {
				ve = v
			}
		}
		// The loop's data rule is exact to rounding, and the modelled loop repeats
		// it N ≤ 400 times on a contraction (|1 − a| < 1): errors of a few ulps per
		// step, ~1e-13 in the end (the metalayer article: "~1e-13"). 1e-10 leaves three decades.
		if ve.MaxModel > 1e-10 {
			t.Errorf("final y: relative error up to %.3g, want ≤ 1e-10", ve.MaxModel)
		}
		// A direct fit of y_N = u + (y0 − u)(1 − a)^N from the inputs cannot be
		// that close (the article: 1e-3…1e-1).
		if ve.Baseline < 1e-6 {
			t.Errorf("the direct baseline reaches %.3g: the example does not show the difference", ve.Baseline)
		}
	})
	t.Run("solver", func(t *testing.T) {
		ts := traceExample(t, "solver.c", []string{"n = uniform_int(100000, 400000)", "w = uniform(0.1, 1.9)"},
			`{n} {w:%.17g}\n`, 40, "thread")
		m := buildModel(t, ts)
		var rule string
		for i, a := range m.Arcs {
			if m.Nodes[a.From].Name == "iter" && m.Nodes[a.To].Name == "iter" {
				for _, d := range a.Data {
					if d.Var == "e" {
						rule = d.Formula.String()
						if err := d.Formula.Compile(m.space); err != nil {
							t.Fatal(err)
						}
						st := make([]float64, m.space.Len())
						st[m.space.VarIndex(slices.Index(m.Vars, "e"))] = 0.3
						st[slices.Index(m.Inputs, "w")] = 1.7
						if got := d.Formula.Eval(st); math.Abs(got-(-0.21)) > 1e-12 {
							t.Errorf("arc %s: e := %s gives %v at e = 0.3, w = 1.7; want (1 − w)·e = −0.21", m.arcName(i), rule, got)
						}
					}
				}
			}
		}
		if rule == "" {
			t.Errorf("no data rule for e on iter → iter")
		}
		ev := m.Evaluation
		if ev.EventsMAPE > 0.02 {
			t.Errorf("checkpoints passed: MAPE %.3g: the iteration count is exact to the rounding of e", ev.EventsMAPE)
		}
		// The iteration count is a V of w with its tip at w = 1 (1 to 212
		// iterations); Extra-P's terms cannot bend that way, while the model follows
		// e. That is shown free of timing noise by the final iteration count, which
		// the model predicts exactly and a direct fit of the inputs cannot. On time
		// the transition-graph model usually wins too (≈5% against ≈20% on a quiet
		// machine, with n up to 400,000 so that an iteration outweighs the clock's
		// noise), but on a loaded machine both sink toward the noise: its time is
		// held to checkTime's bound. The predictor chosen is logged, not held to
		// it: where the noise puts composition's cross-validated error within two
		// standard errors of the graph's, the selection keeps the simpler, whose
		// constant time per iteration cannot follow n (a test suite's load once
		// gave it 49.6% on the held-out runs against the graph's 12.1%).
		var it VarError
		for _, v := range ev.Vars {
			if v.Var == "it" {
				it = v
			}
		}
		if it.Var == "" || it.MaxModel > 1e-9 || it.Baseline < 0.1 {
			t.Errorf("final it: model error up to %.3g (want exact), direct baseline %.3g (want > 0.1): the internal state should win here", it.MaxModel, it.Baseline)
		}
		graph := *ev
		for _, me := range ev.Models {
			if me.Name == selection.CandGraph {
				graph.MAPE = me.MAPE
			}
		}
		checkTime(t, &graph)
		t.Logf("time MAPE: transition-graph model %.3g, chosen (%s) %.3g, direct baseline %.3g", graph.MAPE, ev.Chosen, ev.MAPE, ev.BaselineMAPE)
	})
}

// checkTime checks the held-out time predictions against what noise cannot
// excuse: a MAPE more than 1.5 times the direct baseline's plus 5 points (both
// are fitted to and judged on the same runs, so both see the same noise), more
// single runs outside their 90% intervals than a coverage of 90% makes credible
// (a binomial tail below 0.001: 5 or more of 8 runs; the coverage itself is
// measured over many seeds in the protocol's test), or a MAPE above 100% — a
// prediction off by a factor of two on average.
func checkTime(t *testing.T, ev *Evaluation) {
	t.Helper()
	if ev.MAPE > 1.5*ev.BaselineMAPE+0.05 {
		t.Errorf("time MAPE %.3g, direct baseline %.3g: the model is worse than the obvious one", ev.MAPE, ev.BaselineMAPE)
	}
	out := ev.RunsTotal - ev.RunsCovered
	if p := binomialTail(ev.RunsTotal, out, 0.1); p < 0.001 {
		t.Errorf("%d of %d held-out runs outside their 90%% interval (P = %.2g at 90%% coverage)", out, ev.RunsTotal, p)
	}
	if ev.MAPE > 1 {
		t.Errorf("time MAPE %.3g > 100%%", ev.MAPE)
	}
}

// binomialTail is P(X ≥ k) for X ~ Binomial(n, p).
func binomialTail(n, k int, p float64) float64 {
	if k <= 0 {
		return 1
	}
	return 1 - distuv.Binomial{N: float64(n), P: p}.CDF(float64(k-1))
}

func predictT(t *testing.T, m *Model, in map[string]float64) *Prediction {
	t.Helper()
	p, err := m.Predict(in, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wantRule(t *testing.T, m *Model, node, want string) {
	t.Helper()
	if got := ruleText(m, node); !strings.Contains(got, want) {
		t.Errorf("rule of %s:\n  %s\nwant %q", node, got, want)
	}
}
