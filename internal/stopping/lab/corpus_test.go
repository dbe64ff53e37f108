//go:build integration

package lab

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// scanC reads the file named by argv[1] byte by byte: its loop body runs once per
// byte, the branch on 'a' once per 'a', the branch on '\n' once per line.
const scanC = `#include <stdio.h>
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  long as = 0, lines = 0;
  int c;
  while ((c = getc(f)) != EOF) {
    if (c == 'a') as++;
    else if (c == '\n') lines++;
  }
  fclose(f);
  printf("%ld %ld\n", as, lines);
  return 0;
}
`

// TestCorpusReplay runs a real program on a corpus of 240 files with freq's
// procedure (montecarlo.Run on the program, the population rule, Latin hypercube
// units of 16) and replays the same seed on the counts recorded once per file: the
// replay must stop at the same trial, before the corpus is exhausted, with every
// block's mean, half-width and state the same. The recorded truth must be the
// exact one (the loop's mean count is the files' mean size, known from the
// files), and the coverage of replications must be reported on the blocks asked.
func TestCorpusReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a C program with fragprof and runs it on 240 files; skipped with -short")
	}
	tc, err := build.FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "scan.c")
	if err := os.WriteFile(src, []byte(scanC), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "scan")
	var msg bytes.Buffer
	if _, err := tc.Build(context.Background(), &msg, build.Spec{Sources: []string{src}}, dir, bin); err != nil {
		t.Fatalf("%v\n%s", err, msg.String())
	}
	// 240 files of 100 to 140 bytes: letters, some 'a's, some newlines.
	corpus := filepath.Join(dir, "corpus")
	if err := os.Mkdir(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 240
	rng := rand.New(rand.NewPCG(3, 4))
	var total int
	for i := range n {
		b := make([]byte, 100+rng.IntN(41))
		for k := range b {
			b[k] = "abcdefghij\n"[rng.IntN(11)]
		}
		total += len(b)
		if err := os.WriteFile(filepath.Join(corpus, fmt.Sprintf("%03d.txt", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := dist.ParseOptions(fmt.Sprintf("f = file(%q)", filepath.Join(corpus, "*.txt")), dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	arg, err := dist.ParseTemplate("{f}", m, dist.BackslashEscapes)
	if err != nil {
		t.Fatal(err)
	}
	prog := &montecarlo.Program{Binary: bin, Inputs: &dist.File{Model: m, Args: []*dist.Template{arg}},
		Seed: 7, Isolation: montecarlo.Fork, Timeout: 10 * time.Second, Dir: filepath.Join(dir, "run"), Unit: 16}
	th := stats.DefaultThresholds
	th.Eps, th.RelEps = 0, 0.03
	clt, err := stopping.New(stopping.Default, th)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := PopulationRule(clt, n)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	real, err := montecarlo.Run(ctx, montecarlo.Config{Rule: rule, MaxTrials: n, Jobs: 2, NewWorker: prog.NewWorker, Unit: 16})
	if err != nil {
		t.Fatal(err)
	}
	if real.Trials >= n || !real.Converged {
		t.Fatalf("the real run took %d of %d trials (%s): the test needs a run that stops before the corpus is exhausted", real.Trials, n, real.Stopped)
	}

	c, err := Record(ctx, prog, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Members) != n {
		t.Fatalf("%d members recorded, want %d", len(c.Members), n)
	}
	rep, err := c.Replay(ctx, prog, rule)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Trials != real.Trials {
		t.Fatalf("the replay stopped after %d trials, the real run after %d", rep.Trials, real.Trials)
	}
	loop := -1
	for fi, fn := range real.Prog.Funcs {
		for b, bl := range fn.Blocks {
			d, e := real.Blocks[fi][b].Decision, rep.Blocks[fi][b].Decision
			if d.State != e.State || d.Mean != e.Mean || !sameFloat(d.HalfWidth, e.HalfWidth) || real.Blocks[fi][b].DecidedAt != rep.Blocks[fi][b].DecidedAt {
				t.Errorf("%s:%s: real %v ± %v (%s at %d), replay %v ± %v (%s at %d)", fn.Name, bl.Label,
					d.Mean, d.HalfWidth, d.State, real.Blocks[fi][b].DecidedAt, e.Mean, e.HalfWidth, e.State, rep.Blocks[fi][b].DecidedAt)
			}
			// The loop's condition runs once per byte and once at EOF.
			if fn.Name == "main" && c.Truth(fi, b).Mean == float64(total)/n+1 {
				loop = b
			}
		}
	}
	if loop < 0 {
		t.Errorf("no block of main has the exact mean %v, the files' mean size plus one (the truth is not the corpus's)", float64(total)/n+1)
	}
	// The exhaustive run's exact means are the recorded ones.
	for fi := range c.Prog.Funcs {
		for b := range c.Prog.Funcs[fi].Blocks {
			d := c.Exhaustive.Blocks[fi][b].Decision
			if w := c.Truth(fi, b); d.State != stats.Exact || !sameFloat(d.Mean, w.Mean) {
				t.Errorf("%s: the exhaustive run gives %v (%s), the recorded truth %v", w.Name, d.Mean, d.State, w.Mean)
			}
		}
	}
	cov, err := c.Coverage(ctx, prog, rule, 20, 100, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if cov.R != 20 || cov.Blocks == 0 || cov.MeanTrials <= 0 || cov.MeanTrials > n || cov.Covered > cov.R*cov.Blocks {
		t.Fatalf("coverage result out of range: %+v", cov)
	}
	t.Logf("real run and replay: %d of %d trials; 20 replications: %d blocks, coverage %.3f, %.1f trials on average",
		real.Trials, n, cov.Blocks, cov.BlockCoverage, cov.MeanTrials)
	// At 3 % of the mean, the blocks that run in every file are covered (a
	// replication misses with probability about 5 %, and 20 of them rarely miss
	// more than a third).
	if cov.BlockCoverage < 0.66 {
		t.Errorf("coverage %v over %d blocks and 20 replications", cov.BlockCoverage, cov.Blocks)
	}
}

func sameFloat(a, b float64) bool { return a == b || a != a && b != b }
