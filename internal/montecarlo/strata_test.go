package montecarlo

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// rowsWorker runs a trial as the count of main's body: the column v of the row
// the model draws for the trial.
type rowsWorker struct {
	prog  *cfg.Program
	model *dist.Model
}

func (w *rowsWorker) Trials(_ context.Context, is []uint64) ([]Outcome, error) {
	var outs []Outcome
	s := w.model.NewSample()
	for _, i := range is {
		if err := w.model.DrawInto(s, 1, i); err != nil {
			return nil, err
		}
		v, _ := s.Get("v")
		outs = append(outs, Outcome{Prog: w.prog, Counts: []cfg.Counts{
			{Blocks: []uint64{1, uint64(v.Int)}, Edges: []uint64{1}}, {}}})
	}
	return outs, nil
}

func (w *rowsWorker) Close() error { return nil }

// strataModel writes a rows file of 3 classes — 120 rows of v = 1…3, 40 of
// v = 50…89 and 6 of v = 1000 — and returns the model stratified by class
// under allocation alloc, with the population's mean of v.
func strataModel(t *testing.T, alloc string) (*dist.Model, float64) {
	var b strings.Builder
	b.WriteString("class:string,v\n")
	total := 0
	for i := range 120 {
		fmt.Fprintf(&b, "small,%d\n", 1+i%3)
		total += 1 + i%3
	}
	for i := range 40 {
		fmt.Fprintf(&b, "mid,%d\n", 50+i)
		total += 50 + i
	}
	for range 6 {
		b.WriteString("rare,1000\n")
		total += 1000
	}
	path := filepath.Join(t.TempDir(), "calls.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := dist.Parse(fmt.Sprintf("r = rows(%q; strata = class, alloc = %s)", path, alloc))
	if err != nil {
		t.Fatal(err)
	}
	return m, float64(total) / 166
}

func strataConfig(t *testing.T, m *dist.Model, jobs int, relEps float64) Config {
	th := stats.DefaultThresholds
	th.RelEps, th.Eps, th.Population = relEps, 0, 166
	rule, err := stopping.New("clt", th)
	if err != nil {
		t.Fatal(err)
	}
	sr, err := stopping.NewStratified(th)
	if err != nil {
		t.Fatal(err)
	}
	prog := fakeProgram()
	return Config{Rule: rule, StrataRule: sr, Strata: m.Strata().Schedule, MaxTrials: 166, Jobs: jobs,
		NewWorker: func(int) (Worker, error) { return &rowsWorker{prog: prog, model: m}, nil }}
}

// TestRunStrata: a stratified population's run gives the same result, bit for
// bit, on 1 and 3 workers under either allocation (Neyman's rounds start once
// the trials before them are folded); it stops with the stratified estimate of
// main's body, counts each stratum's trials, and at n = N is exact, the
// population's mean ± 0. At ±1 % it stops at 134 trials under proportional
// allocation, 63 under Neyman's.
func TestRunStrata(t *testing.T) {
	var trials []uint64
	for _, alloc := range []string{"proportional", "neyman"} {
		var text [2]string
		var counts [2][]uint64
		for k, jobs := range []int{1, 3} {
			m, _ := strataModel(t, alloc)
			res, err := Run(context.Background(), strataConfig(t, m, jobs, 0.01))
			if err != nil {
				t.Fatal(err)
			}
			text[k], counts[k] = resultText(res), res.StrataTrials
			if k == 0 {
				trials = append(trials, res.Trials)
			}
			t.Logf("%s, %d jobs: %d trials, strata %v, body %v ± %v", alloc, jobs, res.Trials, res.StrataTrials, res.Blocks[0][1].Decision.Mean, res.Blocks[0][1].Decision.HalfWidth)
			if s := sum(res.StrataTrials); s != res.Trials || res.StrataTrials[2] == 0 {
				t.Errorf("%s: strata trials %v for %d trials", alloc, res.StrataTrials, res.Trials)
			}
			if d := res.Blocks[0][1].Decision; d.State != stats.Converged || res.Trials >= 166 {
				t.Errorf("%s: body %v after %d trials, want converged before 166", alloc, d.State, res.Trials)
			}
		}
		if text[0] != text[1] || fmt.Sprint(counts[0]) != fmt.Sprint(counts[1]) {
			t.Errorf("%s: 1 and 3 workers differ:\n%s\n%s", alloc, text[0], text[1])
		}
		m, mean := strataModel(t, alloc)
		res, err := Run(context.Background(), strataConfig(t, m, 2, 1e-9))
		if err != nil {
			t.Fatal(err)
		}
		d := res.Blocks[0][1].Decision
		if res.Trials != 166 || d.State != stats.Exact || d.HalfWidth != 0 || math.Abs(d.Mean-mean) > 1e-9 ||
			fmt.Sprint(res.StrataTrials) != "[120 40 6]" {
			t.Errorf("%s at N: %d trials %v, body %v %v ± %v, want 166 [120 40 6] exact %v ± 0",
				alloc, res.Trials, res.StrataTrials, d.State, d.Mean, d.HalfWidth, mean)
		}
	}
	// The mid class holds the variance: Neyman's allocation draws it more, and
	// stops sooner.
	if trials[1] >= trials[0] {
		t.Errorf("Neyman's allocation took %d trials, proportional %d", trials[1], trials[0])
	}
}
