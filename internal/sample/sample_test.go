//go:build integration

package sample

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/hotcfg"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// example compiles examples/hot/NAME.c with gcc -O2 -g (once per test binary) and
// returns the program's path.
func example(t *testing.T, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "fragprof-hot")
		if buildErr != nil {
			return
		}
		srcs, _ := filepath.Glob("../../examples/hot/*.c")
		for _, src := range srcs {
			out := filepath.Join(binDir, filepath.Base(src[:len(src)-2]))
			if b, err := exec.Command("gcc", "-O2", "-g", "-pthread", "-o", out, src).CombinedOutput(); err != nil {
				buildErr = &exec.Error{Name: string(b), Err: err}
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("building examples: %v", buildErr)
	}
	return filepath.Join(binDir, name)
}

// devnull opens /dev/null for a program's output.
func devnull(t *testing.T) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// backEdges returns the edges of fn in g that go backwards (loop back edges).
func backEdges(g *hotcfg.Graph, fn string) []*hotcfg.Edge {
	var out []*hotcfg.Edge
	for _, e := range g.Edges {
		if e.From.Symbol.Func == fn && e.To.Symbol.Func == fn && e.To.Start <= e.From.Last && e.Count > 0 {
			out = append(out, e)
		}
	}
	return out
}

func exactGraph(t *testing.T, prog string, o ExactOptions, args ...string) (*hotcfg.Graph, *Stats) {
	t.Helper()
	g, s, err := Exact(Target{Path: prog, Args: args, Stdout: devnull(t)}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	g.Symbolize(NewFiles(g.Maps))
	return g, s
}

func TestExactLoop(t *testing.T) {
	prog := example(t, "loop")
	g, s := exactGraph(t, prog, ExactOptions{}, "20")
	if !s.Exited || s.ExitCode != 0 {
		t.Fatalf("exit: %+v", s)
	}
	// The inner loop runs 20 × 100 times: gcc may unroll or split it, but the back
	// edges of main must carry at least 20 × 99 / 2 transitions and at most 20 × 100.
	var total float64
	for _, e := range backEdges(g, "main") {
		total += e.Count
	}
	if total < 990 || total > 2020 {
		t.Errorf("back edges of main carry %v transitions", total)
	}
}

func TestExactSteppingAgree(t *testing.T) {
	// Breakpoint stepping must see exactly what single-stepping sees.
	prog := example(t, "calls")
	a, sa := exactGraph(t, prog, ExactOptions{Stepping: Breakpoints}, "50")
	b, sb := exactGraph(t, prog, ExactOptions{Stepping: SingleStep}, "50")
	// The two agree on every block and edge count; the instruction totals may differ
	// by a handful at process exit (see docs/sampling.md).
	if d := int64(sa.Instructions) - int64(sb.Instructions); d < -10 || d > 10 {
		t.Errorf("instructions: breakpoints %d, single steps %d", sa.Instructions, sb.Instructions)
	}
	if a.String() != b.String() {
		t.Errorf("graphs differ: %d/%d blocks, %d/%d edges", len(a.Blocks), len(b.Blocks), len(a.Edges), len(b.Edges))
	}
}

// sampled samples prog and returns the Bursts and GFC graphs.
func sampled(t *testing.T, target Target, o Options, cancel *atomic.Bool) (*hotcfg.Graph, *hotcfg.Graph, *Stats) {
	t.Helper()
	return sampledRuns(t, target, o, cancel, 0)
}

// sampledRuns samples target once, and again (up to 10 runs, batches merged: the
// sampler turns address randomisation off, so every run has the same addresses)
// until minBatches batches are in. A run's number of batches depends on the
// machine's speed and load — a loaded CI machine stretches each burst tenfold — so a
// test that needs enough of them gathers runs rather than counting on one. The
// stats returned are the last run's, with Batches the total.
func sampledRuns(t *testing.T, target Target, o Options, cancel *atomic.Bool, minBatches int) (*hotcfg.Graph, *hotcfg.Graph, *Stats) {
	t.Helper()
	code := hotcfg.InsnTable{}
	bu := hotcfg.NewBursts(code)
	gfc := hotcfg.NewGFC(hotcfg.DefaultParams, code)
	var s *Stats
	batches := 0
	for run := 0; run == 0 || batches < minBatches && run < 10; run++ {
		var err error
		s, err = Sample(target, o, func(b hotcfg.Batch, c hotcfg.Code) {
			for _, pc := range b.PCs {
				if in, ok := c.Insn(pc); ok {
					code[pc] = in
				}
			}
			bu.AddBatch(b)
			gfc.AddBatch(b)
		}, cancel)
		if err != nil {
			t.Fatal(err)
		}
		batches += s.Batches
	}
	s.Batches = batches
	gb, gg := bu.Graph(), gfc.Graph()
	gb.Maps, gg.Maps = s.Maps, s.Maps
	return gb, gg, s
}

func TestSampleHotLoops(t *testing.T) {
	for _, tc := range []struct {
		name, exactArg, sampleArg, fn string
	}{
		{"loop", "20", "3000000", "main"},
		{"sortsum", "200", "40000", "main"},
		{"calls", "50", "20000000", "main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := example(t, tc.name)
			exact, _ := exactGraph(t, prog, ExactOptions{}, tc.exactArg)
			want := backEdges(exact, tc.fn)
			if len(want) == 0 {
				t.Fatalf("no back edges in the exact graph of %s", tc.fn)
			}
			gb, gg, s := sampledRuns(t, Target{Path: prog, Args: []string{tc.sampleArg}, Stdout: devnull(t)},
				Options{Interval: time.Millisecond, Burst: 25}, nil, 20)
			if s.Batches < 20 || !s.Exited || s.ExitCode != 0 {
				t.Fatalf("stats %+v", s)
			}
			have := map[hotcfg.EdgeKey]bool{}
			for _, e := range gb.Edges {
				have[e.Key()] = true
			}
			total := exact.TotalTransitions()
			for _, e := range want {
				if e.Count < 0.05*total {
					continue // not a hot loop: under 5% of the transitions
				}
				if !have[e.Key()] {
					t.Errorf("hot back edge %#x→%#x (%v transitions) missing from the sampled graph", e.From.Last, e.To.Start, e.Count)
				}
			}
			c := hotcfg.Compare(gb, exact, 0.9)
			t.Logf("%d batches; bursts: %+v; gfc: %+v", s.Batches, c, hotcfg.Compare(gg, exact, 0.9))
		})
	}
}

func TestSampleThreadsForksCrash(t *testing.T) {
	t.Run("threads", func(t *testing.T) {
		_, _, s := sampled(t, Target{Path: example(t, "threads"), Args: []string{"30000000"}, Stdout: devnull(t)},
			Options{Interval: time.Millisecond, Burst: 25}, nil)
		if !s.Exited || s.ExitCode != 0 || s.Batches == 0 {
			t.Fatalf("stats %+v", s)
		}
	})
	t.Run("forks", func(t *testing.T) {
		_, _, s := sampled(t, Target{Path: example(t, "forks"), Args: []string{"100000000"}, Stdout: devnull(t)},
			Options{Interval: time.Millisecond, Burst: 25}, nil)
		if !s.Exited || s.ExitCode != 0 || s.Batches == 0 {
			t.Fatalf("stats %+v", s)
		}
		t.Logf("notes %v", s.Notes)
	})
	t.Run("crash", func(t *testing.T) {
		_, _, s := sampled(t, Target{Path: example(t, "crash"), Args: []string{"20000000"}, Stdout: devnull(t)},
			Options{Interval: time.Millisecond, Burst: 25}, nil)
		if !s.Exited || s.ExitCode != 128+int(unix.SIGSEGV) {
			t.Fatalf("stats %+v", s)
		}
	})
	t.Run("exact-threads", func(t *testing.T) {
		g, s := exactGraph(t, example(t, "threads"), ExactOptions{}, "300")
		if !s.Exited || s.ExitCode != 0 || len(backEdges(g, "work")) == 0 {
			t.Fatalf("stats %+v; back edges of work: %v", s, backEdges(g, "work"))
		}
	})
}

func TestSampleCancelAndAttach(t *testing.T) {
	prog := example(t, "loop")
	// Cancel: the sampler detaches and the program finishes on its own.
	cmdDone := make(chan struct{})
	var cancel atomic.Bool
	go func() {
		time.Sleep(150 * time.Millisecond)
		cancel.Store(true)
		close(cmdDone)
	}()
	_, _, s := sampled(t, Target{Path: prog, Args: []string{"5000000"}, Stdout: devnull(t)},
		Options{Interval: time.Millisecond, Burst: 25}, &cancel)
	<-cmdDone
	if !s.Interrupted || s.Batches == 0 {
		t.Fatalf("stats %+v", s)
	}

	// Attach to a running process, sample it, detach: it must finish normally.
	cmd := exec.Command(prog, "30000000")
	cmd.Stdout = devnull(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	var stop atomic.Bool
	go func() { time.Sleep(200 * time.Millisecond); stop.Store(true) }()
	_, _, s = sampled(t, Target{PID: cmd.Process.Pid}, Options{Interval: time.Millisecond, Burst: 25}, &stop)
	if s.Batches == 0 {
		t.Errorf("attach: no batches: %+v", s)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("attached program: %v", err)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("attached program left stopped")
	}
}

// TestSampleOverheadTarget runs a program for a few tenths of a second with an adaptive
// interval: after the first tick the gaps follow the measured cost of a tick, so the
// sampler's own time stays near the target whatever the machine's load (the bound
// checked is four times the target, which only the first tick could break).
func TestSampleOverheadTarget(t *testing.T) {
	prog := example(t, "loop")
	// 12M turns: about 0.5 s here, long enough for several ticks even when a loaded
	// machine makes one tick cost 12 ms (and so the gap 240 ms).
	_, _, s := sampled(t, Target{Path: prog, Args: []string{"12000000"}, Stdout: devnull(t)},
		Options{Interval: time.Millisecond, Burst: 25, Overhead: 0.05}, nil)
	if !s.Exited || s.ExitCode != 0 || s.Ticks < 2 || s.Batches == 0 {
		t.Fatalf("stats %+v", s)
	}
	share := float64(s.TickTime) / float64(s.Wall)
	t.Logf("%d ticks, %d batches, sampler time %v of %v (%.2f%%)", s.Ticks, s.Batches, s.TickTime, s.Wall, 100*share)
	if share > 0.20 {
		t.Errorf("sampler time %v is %.1f%% of the run's %v, target 5%%", s.TickTime, 100*share, s.Wall)
	}
}
