//go:build integration

package sample

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/hotcfg"
)

// TestPreloadUndisturbed runs testdata/busy.c (threads running the same code, fork,
// a handler on an alternate stack, masked signals; with "prof" and "trap" its own
// SIGPROF or SIGTRAP handler) plainly and under the in-process sampler, stepping
// with breakpoints and with the trap flag: the outputs must be identical,
// the bursts must come from the threads and the forked child, their consecutive PCs
// must agree with the decoded instructions, and a program's own SIGPROF or SIGTRAP
// handler must be reported and still run.
func TestPreloadUndisturbed(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "busy")
	if b, err := exec.Command("gcc", "-O2", "-g", "-pthread", "-o", prog, "testdata/busy.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	for _, c := range []struct {
		mode      string
		st        Stepping
		taskClock bool
	}{{"", Breakpoints, false}, {"", SingleStep, true}, {"single", Breakpoints, false}, {"single", Breakpoints, true},
		{"prof", Breakpoints, false}, {"trap", Breakpoints, false}} {
		mode := c.mode
		args := []string{"4000000"}
		if mode == "single" {
			args[0] = "20000000" // about 100 ms: 20 ticks of 4 ms
		}
		if mode != "" {
			args = append(args, mode)
		}
		var plain, sampled bytes.Buffer
		if _, err := Plain(Target{Path: prog, Args: args, Stdout: &plain}); err != nil {
			t.Fatal(err)
		}
		pids, tids := map[int]bool{}, map[int]bool{}
		checked := 0
		s, err := Preload(Target{Path: prog, Args: args, Stdout: &sampled},
			Options{Interval: time.Millisecond, Burst: 25, Seed: 1, Stepping: c.st, TaskClock: c.taskClock}, 4096,
			func(b Burst, code hotcfg.Code) {
				pids[b.PID], tids[b.TID] = true, true
				if b.Stack == nil || b.Stack.SP == 0 {
					t.Errorf("burst at %v: no stack", b.Time)
				}
				for i := 0; i+1 < len(b.PCs); i++ {
					in, ok := code.Insn(b.PCs[i])
					if ok && in.Kind == hotcfg.Other && b.PCs[i+1] != in.Next() {
						t.Errorf("burst at %v: %#x (len %d) followed by %#x", b.Time, b.PCs[i], in.Len, b.PCs[i+1])
					}
					checked++
				}
			})
		if err != nil {
			t.Fatal(err)
		}
		if plain.String() != sampled.String() || plain.Len() == 0 {
			t.Errorf("mode %q, %v, task clock %v: output changed under the sampler (exit %d, notes %q):\nplain:\n%s\nsampled:\n%s", mode, c.st, c.taskClock, s.ExitCode, s.Notes, plain.String(), sampled.String())
		}
		switch mode {
		case "":
			if s.Batches < 10 || len(pids) < 2 || len(tids) < 3 || checked < 100 {
				t.Errorf("%v: %d batches from %d processes and %d threads (%d steps checked): want bursts from the threads and the forked child (stepping: %v)",
					c.st, s.Batches, len(pids), len(tids), checked, s.Steps)
			}
			if s.Conflict != 0 || s.CPU <= 0 || s.SelfCost <= 0 || s.SelfCost > s.CPU {
				t.Errorf("conflict %v, CPU %v, self cost %v", s.Conflict, s.CPU, s.SelfCost)
			}
		case "single":
			if s.Batches < 10 || s.Conflict != 0 {
				t.Errorf("single: %d batches, conflict %v", s.Batches, s.Conflict)
			}
		case "prof", "trap":
			want := map[string]unix.Signal{"prof": unix.SIGPROF, "trap": unix.SIGTRAP}[mode]
			if s.Conflict != want || !strings.Contains(strings.Join(s.Notes, "\n"), "--sampler ptrace") {
				t.Errorf("mode %q: conflict %v, notes %q", mode, s.Conflict, s.Notes)
			}
		}
	}
}

// TestPreloadShortRuns runs testdata/spin.c for 1 ms of CPU time, well under the
// kernel's tick, 200 times under the in-process sampler at its defaults (1 ms, 4%).
// A POSIX CPU-time timer expires only on a tick, so a run can take at most the
// bursts of the ticks it runs through, about 1 ms / tick of one on average: the
// first gap, drawn on the tick lattice, must let the runs have at least a quarter of
// that (a tick at which another process holds the CPU takes none)
// (with the gap of a later one, uniform in [0.5, 1.5) ms, a run takes a burst only if
// a tick falls between the gap's end and its own, about 3% of runs on HZ=250). The
// bursts' own CPU time must stay within twice the 4% bound. Plain runs alternate
// with the sampled ones: the median of the per-pair CPU-time ratios must stay under
// 1.5 (the sampler's file on a disk file system cost 2 ms of CPU a run, a ratio of
// about 2.3 here; on tmpfs it is about 1.1).
func TestPreloadShortRuns(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "spin")
	if b, err := exec.Command("gcc", "-O2", "-o", prog, "testdata/spin.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	const runs = 200
	spin := time.Millisecond
	tick := KernelTick()
	o := Options{Interval: time.Millisecond, Burst: 25, Overhead: 0.04}
	var bursts int
	var self, cpu time.Duration
	var ratios []float64
	args := []string{fmt.Sprint(spin.Microseconds())}
	for i := 0; i < runs; i++ {
		o.Seed = uint64(i + 1)
		var out bytes.Buffer
		s, err := Preload(Target{Path: prog, Args: args, Stdout: &out}, o, 4096,
			func(Burst, hotcfg.Code) {})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Plain(Target{Path: prog, Args: args, Stdout: new(bytes.Buffer)})
		if err != nil {
			t.Fatal(err)
		}
		if p.CPU > 0 {
			ratios = append(ratios, float64(s.CPU)/float64(p.CPU))
		}
		if out.String() != "1\n" || s.ExitCode != 0 {
			t.Fatalf("run %d: exit %d, output %q", i, s.ExitCode, out.String())
		}
		bursts += s.Batches
		self += s.SelfCost
		cpu += s.CPU
		if s.Batches > 0 {
			o.BurstCost = self / time.Duration(bursts)
		}
	}
	// A quarter of a burst per tick the spin runs through: a tick at which the
	// thread is not on its CPU (another process ran) takes none, and under the
	// whole suite's load about half of them are lost (23 of 200 seen); the broken
	// first gap this guards against gave 6.
	want := float64(runs) * float64(spin) / float64(tick) / 4
	t.Logf("%d bursts in %d runs of %v (tick %v, %.0f expected at one a tick), %v of %v CPU (%.2f%%)",
		bursts, runs, spin, tick, 4*want, self, cpu, 100*float64(self)/float64(cpu))
	if float64(bursts) < want {
		t.Errorf("%d bursts in %d runs of %v: want at least %.0f (a quarter of a burst per tick run through)", bursts, runs, spin, want)
	}
	if float64(self) > 0.08*float64(cpu) {
		t.Errorf("bursts took %v of %v of CPU time: more than twice the 4%% bound", self, cpu)
	}
	sort.Float64s(ratios)
	if len(ratios) < runs/2 {
		t.Fatalf("%d plain runs with a CPU time", len(ratios))
	}
	med := ratios[len(ratios)/2]
	t.Logf("CPU time sampled/plain: median %.3f over %d pairs (sampler file in %s)", med, len(ratios), sampleFileDir())
	if med > 1.5 {
		t.Errorf("CPU time sampled/plain: median %.3f over %d pairs of %v runs, want at most 1.5", med, len(ratios), spin)
	}
}

// TestPreloadThreadSteps samples testdata/collatz_threads.c (three threads calling
// through a table of function pointers) stepping as the host allows (hardware
// breakpoints where their trial burst delivers, else the trap flag) and with the
// trap flag: the output must be the plain run's, and every step of every burst must
// be one the decoded instruction allows — the next instruction after one that does
// not branch, the static target of a direct jump or call, the target or the next
// instruction after a conditional branch. Bursts must come from three threads or
// more (thread IDs over the three runs); the threads' method must be the first of
// the order whose trial delivered on this host, and with it most bursts must reach
// their 25 PCs (a burst ends early only at a system call or what the stepper does
// not follow), or, when no method delivers, every burst is one PC.
func TestPreloadThreadSteps(t *testing.T) {
	prog, args, plain := collatzThreads(t)
	for _, st := range []Stepping{Auto, SingleStep} {
		var bursts, pcs, checked, full int
		var cost time.Duration
		tids := map[int]bool{}
		var steps StepReport
		for run := 0; run < 3; run++ {
			var out bytes.Buffer
			s, err := Preload(Target{Path: prog, Args: args, Stdout: &out},
				Options{Interval: time.Millisecond, Burst: 25, Seed: uint64(run + 1), Stepping: st, Overhead: 0.04}, 0,
				func(b Burst, code hotcfg.Code) {
					bursts++
					pcs += len(b.PCs)
					cost += b.Cost
					tids[b.TID] = true
					if len(b.PCs) == 25 {
						full++
					}
					for i := 0; i+1 < len(b.PCs); i++ {
						in, ok := code.Insn(b.PCs[i])
						if !ok {
							continue
						}
						next := b.PCs[i+1]
						var good bool
						switch in.Kind {
						case hotcfg.Other:
							good = next == in.Next()
						case hotcfg.Jump, hotcfg.Call:
							good = next == in.Target
						case hotcfg.CondBranch:
							good = next == in.Target || next == in.Next()
						default:
							good = true // indirect: any target
						}
						if !good && checked >= 0 {
							t.Errorf("%v: burst at %v: %#x (kind %v, len %d, target %#x) followed by %#x",
								st, b.Time, b.PCs[i], in.Kind, in.Len, in.Target, next)
							checked = -1 << 30 // one report is enough
						}
						checked++
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != plain || s.ExitCode != 0 {
				t.Fatalf("%v: output %q (exit %d), plain %q", st, out.String(), s.ExitCode, plain)
			}
			steps.Merge(s.Steps)
		}
		if bursts == 0 {
			t.Fatalf("%v: no burst", st)
		}
		t.Logf("%v: %d bursts from %d threads, %.1f PCs a burst (%d full), %v CPU a burst, %d steps checked; stepping: %v",
			st, bursts, len(tids), float64(pcs)/float64(bursts), full, cost/time.Duration(bursts), checked, steps)
		order := []StepMethod{StepHardware, StepTrapFlag}
		if st == SingleStep {
			order = order[1:]
		}
		checkSteps(t, st.String(), steps.Threads, firstDelivering(steps, order...), bursts, pcs, full)
		if len(tids) < 3 || (steps.Threads != StepPCOnly && checked < 1000) {
			t.Errorf("%v: bursts from %d thread IDs over 3 runs, %d steps checked: want at least 3 and 1000", st, len(tids), checked)
		}
	}
}

// collatzThreads builds testdata/collatz_threads.c and returns it, its arguments
// (about 0.12 s of CPU per thread) and its plain output.
func collatzThreads(t *testing.T) (string, []string, string) {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "collatz_threads")
	if b, err := exec.Command("gcc", "-O2", "-pthread", "-o", prog, "testdata/collatz_threads.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	args := []string{"300000"}
	var plain bytes.Buffer
	if _, err := Plain(Target{Path: prog, Args: args, Stdout: &plain}); err != nil {
		t.Fatal(err)
	}
	return prog, args, plain.String()
}

// firstDelivering returns the first method of order whose trial burst in r
// delivered, or StepPCOnly.
func firstDelivering(r StepReport, order ...StepMethod) StepMethod {
	for _, m := range order {
		if tr, ok := r.trial(m); ok && tr.Delivers() {
			return m
		}
	}
	return StepPCOnly
}

// checkSteps checks that the method used is the one wanted and that the bursts
// show it: most reach their 25 PCs when a method steps them, every one is a
// single PC when none does.
func checkSteps(t *testing.T, what string, used, want StepMethod, bursts, pcs, full int) {
	t.Helper()
	if used != want {
		t.Errorf("%s: bursts stepped with %v, want %v (the first whose trial delivered)", what, used, want)
	}
	switch {
	case bursts == 0:
		t.Errorf("%s: no burst", what)
	case used == StepPCOnly && pcs != bursts:
		t.Errorf("%s: %d PCs in %d bursts stepped by %v: want one each", what, pcs, bursts, used)
	case used != StepPCOnly && 2*full < bursts:
		t.Errorf("%s: %d of %d bursts stepped by %v reached 25 PCs, want at least half", what, full, bursts, used)
	}
}

// TestPreloadStepFallback makes stepping methods fail as they do on some hosts
// (Options.brokenSteps: the hardware breakpoint watches an address never run, the
// trap flag is not set, the int3's write is refused; in the trial, or only in the
// program's bursts after a trial that delivered) and checks the fallback: the
// trial burst says which failed and how (or the method is dropped after three
// bursts whose trap never came), the bursts are stepped by the next method that
// delivers on this host (or are single PCs when none does), the report says so,
// and the program's output is unchanged.
func TestPreloadStepFallback(t *testing.T) {
	prog, args, plain := collatzThreads(t)
	spin := filepath.Join(t.TempDir(), "spin")
	if b, err := exec.Command("gcc", "-O2", "-o", spin, "testdata/spin.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	host, ok, err := ProbeSteps()
	if err != nil || !ok {
		t.Fatalf("ProbeSteps: ok %v, err %v", ok, err)
	}
	const int3, hw, tf, hwLater, tfLater = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4
	// A method that delivers in its trial and stops in the bursts is dropped after
	// three bursts whose trap never came; on a host where its trial fails, the trial
	// drops it as on this host.
	stopped := func(m StepMethod) []TrialOutcome {
		tr, _ := host.trial(m)
		if tr.Delivers() {
			return []TrialOutcome{TrialStopped}
		}
		return []TrialOutcome{tr.Outcome}
	}
	for _, c := range []struct {
		name    string
		broken  uint
		threads bool
		want    StepMethod     // the method the bursts must use
		failed  []TrialOutcome // the outcome of the broken methods' trials, int3, hw, tf order
	}{
		{"hardware breakpoints lost", hw, true, firstDelivering(host, StepTrapFlag), []TrialOutcome{TrialShort}},
		{"hardware breakpoints and trap flag lost", hw | tf, true, StepPCOnly, []TrialOutcome{TrialShort, TrialShort}},
		{"int3 refused", int3, false, StepTrapFlag, []TrialOutcome{TrialRefused}},
		{"hardware breakpoints lost after their trial", hwLater, true, firstDelivering(host, StepTrapFlag), stopped(StepHardware)},
		{"trap flag lost after its trial", hw | tfLater, true, StepPCOnly, append([]TrialOutcome{TrialShort}, stopped(StepTrapFlag)...)},
	} {
		p, a, want := prog, args, plain
		if !c.threads {
			p, a, want = spin, []string{"100000"}, "1\n"
		}
		var out bytes.Buffer
		var bursts, pcs, full int
		s, err := Preload(Target{Path: p, Args: a, Stdout: &out},
			Options{Interval: time.Millisecond, Burst: 25, Seed: 1, Overhead: 0.04, brokenSteps: c.broken}, 0,
			func(b Burst, _ hotcfg.Code) {
				if c.threads && b.TID == b.PID {
					return // the main thread's bursts before its threads are int3's
				}
				bursts++
				pcs += len(b.PCs)
				if len(b.PCs) == 25 {
					full++
				}
			})
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != want || s.ExitCode != 0 {
			t.Fatalf("%s: output %q (exit %d), plain %q", c.name, out.String(), s.ExitCode, want)
		}
		t.Logf("%s: %d bursts, %d PCs (%d full); stepping: %v; notes %q", c.name, bursts, pcs, full, s.Steps, s.Notes)
		used := s.Steps.Threads
		if !c.threads {
			used = s.Steps.OneThread
			// The first burst met the refusal and ended; the later ones step.
			bursts, pcs = bursts-1, pcs-min(pcs, 25)
		}
		checkSteps(t, c.name, used, c.want, bursts, pcs, full)
		var failed []TrialOutcome
		for _, tr := range s.Steps.Trials {
			if c.broken&(1<<(tr.Method-1)|1<<(tr.Method+1)) != 0 && !tr.Delivers() {
				failed = append(failed, tr.Outcome)
			}
		}
		if fmt.Sprint(failed) != fmt.Sprint(c.failed) {
			t.Errorf("%s: broken methods' outcomes %v, want %v (%v)", c.name, failed, c.failed, s.Steps)
		}
		if !s.Steps.Degraded() || !strings.Contains(s.Steps.String(), c.want.String()) {
			t.Errorf("%s: the report %q does not say why it stepped with %v", c.name, s.Steps, c.want)
		}
	}
}

// TestStartCost measures the in-process sampler's start on true(1) (StartCost):
// it must find a preloadable true(1) and complete its pairs, every preloaded run
// with the library started (Preload fails a run in which it did not). What the
// start costs depends on the host; how the pairs make it is TestPairedCost's.
func TestStartCost(t *testing.T) {
	c, ok, err := StartCost(5)
	if err != nil || !ok {
		t.Fatalf("StartCost: ok %v, err %v", ok, err)
	}
	t.Logf("start cost %v", c)
}

// TestCachedStartCost checks that the start cost is measured once per machine:
// under an empty $XDG_CACHE_HOME the first call measures it and writes it to a file
// there, the second reads the same value without running anything (its children's
// CPU time does not grow), and a file measured under another machine's key is not
// used.
func TestCachedStartCost(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FRAGPROF_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", dir)
	var told []string
	first, err := CachedStartCost(5, func(f string) { told = append(told, f) })
	if err != nil || !first.OK || !first.Measured {
		t.Fatalf("first call: %+v, %v: want a measurement", first, err)
	}
	if !strings.HasPrefix(first.File, filepath.Join(dir, "fragprof")+"/") {
		t.Errorf("cache file %s is not under $XDG_CACHE_HOME/fragprof", first.File)
	}
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_CHILDREN, &before)
	second, err := CachedStartCost(5, func(f string) { told = append(told, f) })
	unix.Getrusage(unix.RUSAGE_CHILDREN, &after)
	if err != nil || !second.OK || second.Measured || second.Cost != first.Cost || second.File != first.File {
		t.Errorf("second call: %+v, %v: want %v read from %s", second, err, first.Cost, first.File)
	}
	if after != before {
		t.Errorf("the second call ran children (their CPU time grew)")
	}
	if len(told) != 1 || told[0] != first.File {
		t.Errorf("told of measurements for %q, want one, for %s", told, first.File)
	}
	// A file from another machine (another key) is measured over.
	body, err := os.ReadFile(first.File)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first.File, []byte(strings.Replace(string(body), "cpu ", "cpu other ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if third, err := CachedStartCost(5, nil); err != nil || !third.Measured {
		t.Errorf("a file of another machine: %+v, %v: want a new measurement", third, err)
	}
}

// TestProbeSteps tries every stepping method of the in-process sampler on this host
// (ProbeSteps, what `fragprof sample --probe-host` prints): each must have been
// tried, and each outcome must agree with its trial burst — a method that delivers
// reached all its PCs within the cost bound, one that stopped short did not.
func TestProbeSteps(t *testing.T) {
	r, ok, err := ProbeSteps()
	if err != nil || !ok {
		t.Fatalf("ProbeSteps: ok %v, err %v", ok, err)
	}
	if len(r.Trials) != 3 {
		t.Fatalf("%d trials, want 3 (int3, hardware breakpoints, the trap flag): %+v", len(r.Trials), r.Trials)
	}
	for _, tr := range r.Trials {
		t.Logf("this host: %v", tr)
		switch tr.Outcome {
		case TrialOK:
			if tr.PCs != TrialPCs || tr.CPU <= 0 || tr.CPU > TrialMaxCPU {
				t.Errorf("%v: delivers with %d PCs in %v", tr.Method, tr.PCs, tr.CPU)
			}
		case TrialShort:
			if tr.PCs >= TrialPCs {
				t.Errorf("%v: stopped short with %d PCs", tr.Method, tr.PCs)
			}
		case TrialTooCostly:
			if tr.PCs != TrialPCs || tr.CPU <= TrialMaxCPU {
				t.Errorf("%v: too costly with %d PCs in %v", tr.Method, tr.PCs, tr.CPU)
			}
		case TrialRefused:
			if tr.Method == StepTrapFlag {
				t.Errorf("the trap flag cannot be refused")
			}
		default:
			t.Errorf("%v: outcome %d", tr.Method, tr.Outcome)
		}
	}
}
