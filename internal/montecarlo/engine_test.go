package montecarlo

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// fakeProgram has two functions: main, whose loop body runs 1..10 times (uniform),
// and seldom, whose then-block runs in one trial of 1,000.
func fakeProgram() *cfg.Program {
	m := &cfg.Func{Name: "main"}
	entry, body := m.AddBlock("entry"), m.AddBlock("body")
	m.AddEdge(entry, body, cfg.Unconditional, "")
	s := &cfg.Func{Name: "seldom"}
	e2, then := s.AddBlock("entry"), s.AddBlock("then")
	s.AddEdge(e2, then, cfg.Unconditional, "")
	return &cfg.Program{Funcs: []*cfg.Func{m, s}}
}

// fakeWorker runs trial i from the seed (1, i) alone: its counts, or a failure when
// fail says so.
type fakeWorker struct {
	prog *cfg.Program
	fail func(i uint64) (reason, cause string)
}

func (w *fakeWorker) Trials(_ context.Context, is []uint64) ([]Outcome, error) {
	var outs []Outcome
	for _, i := range is {
		if w.fail != nil {
			if reason, cause := w.fail(i); reason != "" {
				outs = append(outs, Outcome{Failure: reason, Cause: cause, Exit: 124})
				continue
			}
		}
		r := rand.New(rand.NewPCG(1, i))
		n := 1 + r.Uint64N(10)
		var hit uint64
		if r.Uint64N(1000) == 0 {
			hit = 1
		}
		outs = append(outs, Outcome{Prog: w.prog, Exit: 0, Counts: []cfg.Counts{
			{Blocks: []uint64{1, n}, Edges: []uint64{1}},
			{Blocks: []uint64{1, hit}, Edges: []uint64{hit}},
		}})
	}
	return outs, nil
}

func (w *fakeWorker) Close() error { return nil }

func fakeConfig(t *testing.T, jobs int, fail func(uint64) (string, string)) Config {
	t.Helper()
	th := stats.DefaultThresholds
	th.Eps = 0.2
	rule, err := stopping.New("clt", th)
	if err != nil {
		t.Fatal(err)
	}
	prog := fakeProgram()
	return Config{Rule: rule, MaxTrials: 20000, Jobs: jobs,
		NewWorker: func(int) (Worker, error) { return &fakeWorker{prog: prog, fail: fail}, nil }}
}

// TestRunWorkersAgree: the same trials give the same result on 1 and 3 workers (the
// folding order and the check points depend on trial numbers only).
func TestRunWorkersAgree(t *testing.T) {
	var got [2]*Result
	for k, jobs := range []int{1, 3} {
		res, err := Run(context.Background(), fakeConfig(t, jobs, nil))
		if err != nil {
			t.Fatal(err)
		}
		res.Elapsed = 0
		got[k] = res
	}
	a, b := *got[0], *got[1]
	for fi := range a.Blocks {
		for bi := range a.Blocks[fi] {
			x, y := a.Blocks[fi][bi], b.Blocks[fi][bi]
			if !reflect.DeepEqual(x.Dist, y.Dist) {
				t.Errorf("function %d block %d: count distributions differ", fi, bi)
			}
			x.Dist, y.Dist = nil, nil
			if fmt.Sprintf("%+v", x) != fmt.Sprintf("%+v", y) {
				t.Errorf("function %d block %d: %+v and %+v", fi, bi, x, y)
			}
		}
	}
	for _, f := range []struct {
		name string
		x, y any
	}{{"trials", a.Trials, b.Trials}, {"edges", a.Edges, b.Edges},
		{"edge totals", a.EdgeTotals, b.EdgeTotals}, {"exits", a.Exits, b.Exits}, {"stopped", a.Stopped, b.Stopped}} {
		// Printed, since the decisions hold NaNs (undefined fields), which
		// DeepEqual never finds equal.
		if fmt.Sprintf("%+v", f.x) != fmt.Sprintf("%+v", f.y) {
			t.Errorf("1 and 3 workers differ in %s", f.name)
		}
	}
	if got[0].Exits[0] != got[0].Trials {
		t.Errorf("exit tally %v over %d trials", got[0].Exits, got[0].Trials)
	}
}

// TestRunFailFast: with a quarter of the trials timing out and a seventh crashing,
// the run stops at the 11th failure (more than 10 % of the first 100), with the
// tally by cause and the first trial of each.
func TestRunFailFast(t *testing.T) {
	fail := func(i uint64) (string, string) {
		switch {
		case i%4 == 1:
			return "timed out after 1s", "timeout"
		case i%7 == 3:
			return "killed by signal segmentation fault", "signal SIGSEGV"
		}
		return "", ""
	}
	res, err := Run(context.Background(), fakeConfig(t, 2, fail))
	if err != nil {
		t.Fatal(err)
	}
	if !res.FailedOut || len(res.Failures) != 11 {
		t.Fatalf("failed out %v after %d failures (%s)", res.FailedOut, len(res.Failures), res.Stopped)
	}
	want := []Cause{{"timeout", 0, 1}, {"signal SIGSEGV", 0, 3}}
	for k := range want {
		if k >= len(res.Causes) || res.Causes[k].Cause != want[k].Cause || res.Causes[k].First != want[k].First {
			t.Fatalf("causes %+v, want first trials 1 (timeout) and 3 (signal)", res.Causes)
		}
	}
	if res.Causes[0].Trials+res.Causes[1].Trials != 11 {
		t.Errorf("causes %+v do not add up to 11", res.Causes)
	}
}

// TestRunOnly: at ±5 %, a block that runs once in 1,000 trials holds the run to its
// budget (no budget for declaring blocks rare here); with Only main, main's blocks
// alone decide, and the run stops early.
func TestRunOnly(t *testing.T) {
	c := fakeConfig(t, 2, nil)
	th := stats.DefaultThresholds
	th.RelEps, th.MaxTrials = 0.05, 0
	rule, err := stopping.New("clt", th)
	if err != nil {
		t.Fatal(err)
	}
	c.Rule, c.MaxTrials = rule, 5000
	for _, only := range [][]string{nil, {"main"}} {
		c.Only = only
		res, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if held := res.Trials == 5000 && !res.Converged; held != (only == nil) {
			t.Errorf("Only %v: %d trials, converged %v (%s)", only, res.Trials, res.Converged, res.Stopped)
		}
	}
	c.Only = []string{"mian"}
	if _, err := Run(context.Background(), c); err == nil || err.Error() != "no function mian in the program (it has main, seldom)" {
		t.Errorf("Only mian: %v", err)
	}
}

// sparseWorker is fakeWorker's program with seldom called only in the trials where
// its then-block runs (about 1 in 20); with sparse set, a trial where seldom did
// not run reports the zero cfg.Counts for it, as dump.SparseProfile does.
type sparseWorker struct {
	prog   *cfg.Program
	sparse bool
}

func (w *sparseWorker) Trials(_ context.Context, is []uint64) ([]Outcome, error) {
	var outs []Outcome
	for _, i := range is {
		r := rand.New(rand.NewPCG(1, i))
		n := 1 + r.Uint64N(10)
		seldom := cfg.Counts{Blocks: []uint64{1, 1}, Edges: []uint64{1}}
		if r.Uint64N(20) != 0 {
			seldom = cfg.Counts{Blocks: []uint64{0, 0}, Edges: []uint64{0}}
			if w.sparse {
				seldom = cfg.Counts{}
			}
		}
		outs = append(outs, Outcome{Prog: w.prog, Counts: []cfg.Counts{
			{Blocks: []uint64{1, n}, Edges: []uint64{1}}, seldom}})
	}
	return outs, nil
}

func (w *sparseWorker) Close() error { return nil }

// TestRunSparseOutcomes: a run whose trials report the functions that did not run
// sparsely (zero cfg.Counts) gives the result of one that reports their zeros: the
// same distributions, decisions, convergence series and stop, with and without
// Latin hypercube units; edge means agree to rounding.
func TestRunSparseOutcomes(t *testing.T) {
	for _, unit := range []uint64{1, 16} {
		var got [2]*Result
		for k, sparse := range []bool{false, true} {
			c := fakeConfig(t, 2, nil)
			th := stats.DefaultThresholds
			th.Eps = 0.02
			rule, err := stopping.New("clt", th)
			if err != nil {
				t.Fatal(err)
			}
			prog := fakeProgram()
			c.Rule, c.Unit, c.MaxTrials = rule, unit, 3000
			c.NewWorker = func(int) (Worker, error) { return &sparseWorker{prog: prog, sparse: sparse}, nil }
			if got[k], err = Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
		a, b := got[0], got[1]
		if a.Trials != b.Trials || a.Stopped != b.Stopped || a.Units != b.Units {
			t.Fatalf("unit %d: dense %d trials (%s), sparse %d (%s)", unit, a.Trials, a.Stopped, b.Trials, b.Stopped)
		}
		for fi := range a.Blocks {
			for bi := range a.Blocks[fi] {
				x, y := a.Blocks[fi][bi], b.Blocks[fi][bi]
				if !reflect.DeepEqual(x.Dist, y.Dist) {
					t.Errorf("unit %d, function %d block %d: distributions differ", unit, fi, bi)
				}
				if fmt.Sprintf("%+v %d %+v", x.Decision, x.DecidedAt, x.Series) != fmt.Sprintf("%+v %d %+v", y.Decision, y.DecidedAt, y.Series) {
					t.Errorf("unit %d, function %d block %d: dense %+v, sparse %+v", unit, fi, bi, x.Decision, y.Decision)
				}
			}
			for e := range a.Edges[fi] {
				if x, y := a.Edges[fi][e].Mean, b.Edges[fi][e].Mean; math.Abs(x-y) > 1e-12*math.Abs(x) {
					t.Errorf("unit %d, function %d edge %d: mean %v dense, %v sparse", unit, fi, e, x, y)
				}
			}
		}
		if a.Blocks[1][1].Dist.Summary().Ran() == 0 || a.Blocks[1][1].Dist.Summary().Ran() == a.Trials {
			t.Errorf("unit %d: seldom ran in %d of %d trials: the test needs it to skip some", unit, a.Blocks[1][1].Dist.Summary().Ran(), a.Trials)
		}
	}
}

// twinsWorker runs a function of six blocks whose counts keep some blocks twins
// (equal in every trial) and tell others apart late: 0 and 1 are always 1; 2 is n;
// 3 is n except in trial 40; 4 and 5 are n up to trial 20 and 2n after it, so they
// leave 2's class together.
type twinsWorker struct{ prog *cfg.Program }

func twinCounts(i uint64) []uint64 {
	n := 1 + rand.New(rand.NewPCG(2, i)).Uint64N(6)
	c := []uint64{1, 1, n, n, n, n}
	if i == 40 {
		c[3]++
	}
	if i > 20 {
		c[4], c[5] = 2*n, 2*n
	}
	return c
}

func (w *twinsWorker) Trials(_ context.Context, is []uint64) ([]Outcome, error) {
	var outs []Outcome
	for _, i := range is {
		outs = append(outs, Outcome{Prog: w.prog, Counts: []cfg.Counts{{Blocks: twinCounts(i), Edges: []uint64{}}}})
	}
	return outs, nil
}

func (w *twinsWorker) Close() error { return nil }

// TestRunTwins: blocks that share a distribution while their counts agree end with
// exactly the distribution of their own counts, each its own, and the rule's
// decision on it.
func TestRunTwins(t *testing.T) {
	f := &cfg.Func{Name: "twins"}
	for b := range 6 {
		f.AddBlock(fmt.Sprint("b", b))
	}
	prog := &cfg.Program{Funcs: []*cfg.Func{f}}
	for _, unit := range []uint64{1, 16} {
		th := stats.DefaultThresholds
		th.RelEps = 1e-9 // never converges: every trial is folded
		rule, err := stopping.New("clt", th)
		if err != nil {
			t.Fatal(err)
		}
		c := Config{Rule: rule, MaxTrials: 100, Jobs: 1, Unit: unit,
			NewWorker: func(int) (Worker, error) { return &twinsWorker{prog: prog}, nil }}
		r, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]stats.CountDist, 6)
		for i := range r.Trials {
			for b, v := range twinCounts(i) {
				want[b].Add(v)
			}
		}
		for b := range 6 {
			got := r.Blocks[0][b]
			if !reflect.DeepEqual(*got.Dist, want[b]) {
				t.Errorf("unit %d, block %d: distribution %+v, want %+v", unit, b, *got.Dist, want[b])
			}
			for b2 := range b {
				if r.Blocks[0][b2].Dist == got.Dist {
					t.Errorf("unit %d: blocks %d and %d share a distribution in the result", unit, b2, b)
				}
			}
			if unit == 1 {
				if d := rule.Decide(want[b].Summary()); fmt.Sprint(d) != fmt.Sprint(got.Decision) {
					t.Errorf("block %d: decision %+v, want %+v", b, got.Decision, d)
				}
			}
		}
	}
}

// repeatWorker gives function 0 one of three count vectors per trial, long runs of
// the same one, as the same cfg.Counts for the same vector when shared (as
// instrument.FuncPlan.ReconstructShared does, whatever the worker) or a fresh copy;
// function 1 runs in half the trials.
type repeatWorker struct {
	prog   *cfg.Program
	shared bool
	cache  map[uint64]cfg.Counts
}

func repeatCounts(i uint64) (main, other cfg.Counts) {
	r := rand.New(rand.NewPCG(3, i))
	n := 1 + r.Uint64N(3)
	if r.Uint64N(4) != 0 {
		n = 1
	}
	main = cfg.Counts{Blocks: []uint64{1, n, n - 1}, Edges: []uint64{n, n - 1}}
	if r.Uint64N(2) == 0 {
		other = cfg.Counts{Blocks: []uint64{1, i % 2}, Edges: []uint64{i % 2}}
	}
	return main, other
}

func (w *repeatWorker) Trials(_ context.Context, is []uint64) ([]Outcome, error) {
	var outs []Outcome
	for _, i := range is {
		c, other := repeatCounts(i)
		if w.shared {
			if old, ok := w.cache[c.Blocks[1]]; ok {
				c = old
			}
			w.cache[c.Blocks[1]] = c
		}
		outs = append(outs, Outcome{Prog: w.prog, Counts: []cfg.Counts{c, other}})
	}
	return outs, nil
}

func (w *repeatWorker) Close() error { return nil }

// TestRunRepeats: a function whose trials repeat the same counts, folded in one step
// when read, ends with exactly the distributions of its counts and, within rounding,
// the moments of its edges; and the result is the same, bit for bit, on 1 and 3
// workers and with shared or fresh counts.
func TestRunRepeats(t *testing.T) {
	m := &cfg.Func{Name: "main"}
	b0, b1, b2 := m.AddBlock("entry"), m.AddBlock("body"), m.AddBlock("more")
	m.AddEdge(b0, b1, cfg.Unconditional, "")
	m.AddEdge(b1, b2, cfg.Unconditional, "")
	s := &cfg.Func{Name: "other"}
	e0, e1 := s.AddBlock("entry"), s.AddBlock("then")
	s.AddEdge(e0, e1, cfg.Unconditional, "")
	prog := &cfg.Program{Funcs: []*cfg.Func{m, s}}
	for _, unit := range []uint64{1, 16} {
		var first *Result
		for _, run := range []struct {
			jobs   int
			shared bool
		}{{1, false}, {1, true}, {3, true}} {
			th := stats.DefaultThresholds
			th.RelEps = 0.01
			rule, err := stopping.New("clt", th)
			if err != nil {
				t.Fatal(err)
			}
			c := Config{Rule: rule, MaxTrials: 5000, Jobs: run.jobs, Unit: unit,
				NewWorker: func(int) (Worker, error) {
					return &repeatWorker{prog: prog, shared: run.shared, cache: map[uint64]cfg.Counts{}}, nil
				}}
			r, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if r.Trials < 100 {
				t.Fatalf("unit %d: %d trials", unit, r.Trials)
			}
			if first == nil {
				first = r
				// Against every trial folded as it comes.
				dists := [2][]stats.CountDist{make([]stats.CountDist, 3), make([]stats.CountDist, 2)}
				edges := [2][]stats.Moments{make([]stats.Moments, 2), make([]stats.Moments, 1)}
				for i := range r.Trials {
					main, other := repeatCounts(i)
					if other.Blocks == nil {
						other = cfg.Counts{Blocks: []uint64{0, 0}, Edges: []uint64{0}}
					}
					for fi, c := range []cfg.Counts{main, other} {
						for b, v := range c.Blocks {
							dists[fi][b].Add(v)
						}
						for e, v := range c.Edges {
							edges[fi][e].Add(float64(v))
						}
					}
				}
				for fi := range dists {
					for b := range dists[fi] {
						if !reflect.DeepEqual(*r.Blocks[fi][b].Dist, dists[fi][b]) {
							t.Errorf("unit %d, function %d block %d: %+v, want %+v", unit, fi, b, *r.Blocks[fi][b].Dist, dists[fi][b])
						}
					}
					for e := range edges[fi] {
						x, y := r.Edges[fi][e], edges[fi][e]
						if x.N != y.N || math.Abs(x.Mean-y.Mean) > 1e-12*math.Abs(y.Mean) || math.Abs(x.M2-y.M2) > 1e-9*math.Abs(y.M2) {
							t.Errorf("unit %d, function %d edge %d: %+v, want %+v", unit, fi, e, x, y)
						}
					}
				}
				continue
			}
			// Printed, not reflect.DeepEqual: decisions hold NaNs.
			if a, b := resultText(r), resultText(first); a != b {
				t.Errorf("unit %d, %d workers, shared %v: the result differs from 1 worker's:\n%s\n%s", unit, run.jobs, run.shared, a, b)
			}
		}
	}
}

// resultText prints what a Result estimates, bit for bit (%b: floats as mantissa
// and exponent).
func resultText(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d %s\n", r.Trials, r.Units, r.Stopped)
	for fi := range r.Blocks {
		for _, be := range r.Blocks[fi] {
			fmt.Fprintf(&b, "%+v %b %d %b\n", *be.Dist, be.Decision, be.DecidedAt, be.Series)
		}
		fmt.Fprintf(&b, "%b %v\n", r.Edges[fi], r.EdgeTotals[fi])
	}
	return b.String()
}

// TestPointJSON: a point reads back as it was written, an undefined half-width
// (NaN, written null) included.
func TestPointJSON(t *testing.T) {
	in := []Point{{N: 1, Mean: 3, HalfWidth: math.NaN()}, {N: 300, Mean: 2.5, HalfWidth: 1.25e-07}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"n":1,"mean":3,"halfwidth":null},{"n":300,"mean":2.5,"halfwidth":1.25e-07}]`; string(b) != want {
		t.Fatalf("written %s, want %s", b, want)
	}
	var out []Point
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].N != 1 || out[0].Mean != 3 || !math.IsNaN(out[0].HalfWidth) || out[1] != in[1] {
		t.Errorf("read back %+v, want %+v", out, in)
	}
	if err := json.Unmarshal([]byte(`{"n":"x"}`), &out[0]); err == nil {
		t.Errorf("a point with a string n read without error")
	}
}
