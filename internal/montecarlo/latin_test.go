package montecarlo

import (
	"context"
	"math"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// latinProgram has one function whose blocks run n times (a loop), once when
// x < 0.3 (a branch) and g times (a geometric loop), for the inputs of latinModel.
func latinProgram() *cfg.Program {
	m := &cfg.Func{Name: "main"}
	entry := m.AddBlock("entry")
	for _, l := range []string{"loop", "branch", "geometric"} {
		m.AddEdge(entry, m.AddBlock(l), cfg.Unconditional, "")
	}
	return &cfg.Program{Funcs: []*cfg.Func{m}}
}

const latinModel = "n = uniform_int(1, 100)\nx = uniform(0, 1)\ng = geometric(0.2)"

// latinTruth is the expected count of each block of latinProgram.
var latinTruth = []float64{1, 50.5, 0.3, 4}

// modelWorker draws each trial's inputs from the real input model (as the program
// workers do, with Sample.SetUnit) and returns the counts latinProgram would have.
type modelWorker struct {
	prog  *cfg.Program
	model *dist.Model
	s     *dist.Sample
	seed  uint64
	fail  func(uint64) bool
}

func newModelWorker(t *testing.T, seed uint64, unit int, fail func(uint64) bool) *modelWorker {
	m, err := dist.Parse(latinModel)
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewSample()
	s.SetUnit(unit)
	return &modelWorker{prog: latinProgram(), model: m, s: s, seed: seed, fail: fail}
}

func (w *modelWorker) Trials(_ context.Context, is []uint64) ([]Outcome, error) {
	var outs []Outcome
	for _, i := range is {
		if w.fail != nil && w.fail(i) {
			outs = append(outs, Outcome{Failure: "killed", Cause: "signal SIGSEGV", Exit: 139})
			continue
		}
		if err := w.model.DrawInto(w.s, w.seed, i); err != nil {
			return nil, err
		}
		n, g := uint64(w.s.Values[0].Int), uint64(w.s.Values[2].Int)
		var br uint64
		if w.s.Values[1].Float < 0.3 {
			br = 1
		}
		outs = append(outs, Outcome{Prog: w.prog, Counts: []cfg.Counts{{Blocks: []uint64{1, n, br, g}, Edges: []uint64{n, br, g}}}})
	}
	return outs, nil
}

func (w *modelWorker) Close() error { return nil }

func latinConfig(t *testing.T, seed uint64, unit int, fail func(uint64) bool) Config {
	th := stats.DefaultThresholds
	th.RelEps = 0.05
	rule, err := stopping.New(stopping.Default, th)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Rule: rule, Jobs: 1, MaxTrials: 100_000, Unit: uint64(unit),
		NewWorker: func(int) (Worker, error) { return newModelWorker(t, seed, unit, fail), nil }}
}

// TestRunLatinCoverage runs the whole procedure, Latin hypercube draws of the real
// input model through the engine and the rule, 150 times per design, and checks
// that every block's reported interval covers its true expected count in at least
// γ − 0.03 of the runs, and that units of 16 spend at most 60 % of the trials of
// independent draws (the laboratory measures 2–2.5× fewer on these counts).
func TestRunLatinCoverage(t *testing.T) {
	const reps = 150
	trials := map[int]float64{}
	for _, unit := range []int{1, 16} {
		covered := make([]int, len(latinTruth))
		for r := range uint64(reps) {
			res, err := Run(context.Background(), latinConfig(t, 100+r, unit, nil))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("unit %d, seed %d: %s", unit, 100+r, res.Stopped)
			}
			trials[unit] += float64(res.Trials) / reps
			for b, want := range latinTruth {
				d := res.Blocks[0][b].Decision
				if d.State == stats.Constant && d.Mean == want || d.Lo <= want && want <= d.Hi {
					covered[b]++
				}
			}
		}
		for b, k := range covered {
			if cov := float64(k) / reps; cov < 0.95-0.03 {
				t.Errorf("unit %d: block %d covered %d in %.3f of %d runs, want ≥ 0.92", unit, b, int(latinTruth[b]), cov, reps)
			}
		}
	}
	t.Logf("mean trials: independent %.0f, units of 16 %.0f", trials[1], trials[16])
	if trials[16] > 0.6*trials[1] {
		t.Errorf("units of 16 took %.0f trials on average, independent draws %.0f: want at most 60 %%", trials[16], trials[1])
	}
}

// TestRunLatinUnits checks the accounting of units: shards take whole units, a
// unit with a failed trial is left out of the units' sums (its trials still count
// one by one), and the same seed gives the same result on 1 and 3 workers.
func TestRunLatinUnits(t *testing.T) {
	c := Config{Unit: 16, Shard: 1, Shards: 3}
	var got []uint64
	for i := range uint64(34) {
		got = append(got, c.trialNumber(i))
	}
	want := []uint64{16, 17, 18}
	if got[0] != 16 || got[15] != 31 || got[16] != 64 || got[33] != 113 {
		t.Errorf("shard 1/3 with units of 16 runs trials %v..., want %v... then 64 (unit 4)", got[:3], want)
	}

	fail := func(i uint64) bool { return i == 20 || i == 21 || i == 100 }
	cf := latinConfig(t, 7, 16, fail)
	cf.MaxTrials, cf.MaxFailRate = 160, 1
	res, err := Run(context.Background(), cf)
	if err != nil {
		t.Fatal(err)
	}
	// 160 trials in 10 units; units 1 (trials 16–31) and 6 (96–111) hold failures.
	if res.Trials != 157 || res.Units != 8 || res.Unit != 16 {
		t.Errorf("%d trials in %d units of %d, want 157 trials in 8 units of 16", res.Trials, res.Units, res.Unit)
	}
	var out [2]*Result
	for k, jobs := range []int{1, 3} {
		cj := latinConfig(t, 9, 16, nil)
		cj.Jobs = jobs
		if out[k], err = Run(context.Background(), cj); err != nil {
			t.Fatal(err)
		}
	}
	for b := range latinTruth {
		x, y := out[0].Blocks[0][b].Decision, out[1].Blocks[0][b].Decision
		if x.N != y.N || x.Mean != y.Mean || x.HalfWidth != y.HalfWidth && !(math.IsNaN(x.HalfWidth) && math.IsNaN(y.HalfWidth)) {
			t.Errorf("block %d: 1 worker %v ± %v at %d, 3 workers %v ± %v at %d", b, x.Mean, x.HalfWidth, x.N, y.Mean, y.HalfWidth, y.N)
		}
	}
}
