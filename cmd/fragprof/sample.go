// This file implements `fragprof sample`.

package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/sample"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/profile"
)

func newSampleCmd(e *env) *cobra.Command {
	var f sampleFlags
	c := &cobra.Command{
		Use:   "sample [flags] -- PROG [ARGS...]   |   sample --pid PID [flags]",
		Short: "Sample bursts of PCs of a native program (in process or with ptrace), or trace it exactly",
		Long: `Sample runs PROG with ARGS (or attaches to the running process PID) and, every
--interval on average (each gap drawn uniformly in [I/2, 3I/2) so that sampling does
not alias with the program's own periods), records from each running thread a burst
of --burst consecutive program counters: a batch. The program is not recompiled.

Two samplers (--sampler, docs/sampling.md):

  inprocess  the default for programs it starts that are dynamically linked
             (fragprof-built ones included): a small library is preloaded
             (LD_PRELOAD) that arms a CPU-time timer in every thread; at each
             expiry it follows the thread for a burst, with one breakpoint per
             basic block (int3 while the process has one thread, then the
             thread's own hardware breakpoint), and writes
             the PCs and a copy of the top of the stack to a memory-mapped file
             that fragprof decodes and unwinds (call stacks) afterwards. The
             interval counts the thread's CPU time (rounded up to the kernel's
             tick, 4 ms on HZ=250 kernels, unless --task-clock); default 1ms,
             and --overhead defaults to 4%. A thread's first gap is drawn on
             the tick so that a run shorter than a tick can still take one. A program that installs its own SIGPROF or SIGTRAP handler
             gets it, and sampling stops in it: sample it with --sampler ptrace
             (the later runs of --repeat switch by themselves).
  ptrace     for --pid, statically linked programs, and on request: threads are
             stopped with PTRACE_INTERRUPT, never with a signal the program could
             catch; the interval is wall time, default 3ms. At each tick every
             traced thread whose state is R in /proc is interrupted in turn, while
             the others keep running; a thread stopped inside a restartable system
             call is skipped. Threads are followed as they are created; forked
             children while they run the same program.

The batches go to -o (default sample.batches) in the streamable text format of
docs/batches.md, with each instruction's length, kind and static target decoded once.
'fragprof hotcfg' builds hot CFGs from them, prints the hottest functions, blocks and
edges (--top N), or converts them to pprof with their call stacks ('fragprof export
FILE.batches --format pprof'); with --graph FILE the Bursts builder also runs online.
A plain in-process run (one run, without --graph, --repeat, --measure-overhead or
--until-similarity) writes a record instead, which 'hotcfg' and 'export' read as
that batches file: the sampler's own file as the program left it, whose bursts are
decoded and unwound when it is read, not in the run (docs/batches.md, "The record").

--format profile writes instead, to -o (default sample.fpp), the profile file of
the run's hot CFG (docs/profile-format.md), as 'fragprof hotcfg FILE --format
profile' writes it with its defaults: counts, and each edge's rate and standard
error in the profile's rates section. The batches are decoded and the graph built
after the run, from a temporary file that is then removed. With --exact it writes
the exact graph's profile.

With --exact, every instruction of every thread is executed under ptrace and the
exact dynamic CFG (machine blocks split at every observed branch target, edges with
transition counts, the instruction total) is written to -o (default exact.cfg) as
JSON (docs/json.md: its profile's functions, and "graph", the graph by address): the
reference for 'fragprof hotcfg --compare'. It is slow by nature (about
5-10 µs per instruction on a VM); --max-instructions bounds it, after which the
program is detached and, if fragprof started it, ended with SIGTERM (SIGKILL 1 s
later).

Stepping (--stepping), ptrace: 'breakpoints' runs each straight-line block to a
temporary int3 planted at its successors; 'singlestep' uses PTRACE_SINGLESTEP per
instruction; 'auto' (the default) uses breakpoints while the process has one thread.
In process, 'singlestep' forces the trap flag; otherwise a burst stops once per basic
block: at an int3 while the process has one thread, then at a hardware breakpoint of
the sampled thread alone (a perf breakpoint event). A kernel may accept that event
and never deliver its trap, a hypervisor may lose the trap flag's: before bursts use
hardware breakpoints or the trap flag, a trial burst in the process checks that the
method delivers (16 PCs within 4.8 ms of CPU), and the next one is used when it does
not (hardware breakpoints, the trap flag, then bursts of one PC). The report and the
batches file (info stepping) say which methods stepped the bursts and why the others
were passed over; --probe-host tries every method and prints which deliver here.

Address-space randomisation is turned off for started programs (unless --aslr) so
that runs of a program compare directly. The program's stdin, stdout and stderr pass
through; the report goes to stderr and fragprof exits with the program's status.
Ctrl-C keeps what was collected (under ptrace it detaches and passes the interrupt
on; in process the program receives it and ends as it would) and exits 130; a
SIGINT or SIGTERM (143) sent to fragprof alone is passed on to a program it
started, which gets SIGKILL a second later if it is still running.

--overhead SHARE (e.g. 5%) bounds the sampler's direct cost. In process each
thread's mean gap becomes at least its mean burst cost (the CPU time from a burst's
start to its end) / SHARE. The report's estimate of the cost adds to the bursts'
CPU time the reading of the mappings at each process's first burst (timed by the
library, 60-80 µs) and the library's start in each run (loading and starting it,
about 0.1 ms, which no gap can reach: measured on 61 pairs of runs of true(1) once
per machine and kept in fragprof's cache directory, $FRAGPROF_CACHE or
$XDG_CACHE_HOME/fragprof or ~/.cache/fragprof), most of the cost on runs of a few
milliseconds; then fragprof's own CPU time and that of the commands it ran (the
calibration when it runs, the C compiler): the share it prints is of everything it
adds to the process tree, over the program's own CPU time. So with --repeat the in-process sampler
samples each run after the first only with probability min(1, SHARE x the program's
CPU time per run / the sampler's cost per sampled run), both learned from the runs
so far (the cost is the bursts plus twice the start and the mappings until 20 runs
of each kind measure it whole, as the difference of their mean CPU times, taken at
its upper 95% confidence bound), and runs the others plainly: runs of a few
milliseconds are thinned most, runs of a second hardly at all, and the report says
how many were sampled (the batches are fewer by as much; --until-similarity runs
until they suffice). --overhead 100% samples every run. Under ptrace the mean
interval follows the mean cost of a tick (the tracer's wall time in it) / SHARE;
--interval is then only the first gap, and later runs of --repeat start from the
cost learned. The tracer's own time misses most of what ptrace costs the program,
so no share is reported for it: --measure-overhead measures the cost.

--until-similarity SHARE (e.g. 90%) repeats the runs, at most --repeat of them (default
100000 with this flag), until the hot CFG's own estimate of its similarity to the
exact graph reaches SHARE at two checks in a row (made each time the batches have
grown by a quarter), with at least 1,000 batches and at least one per hot edge: of
the hot edges of the graph of all the batches (those carrying 90% of its estimated
transitions), the smaller of the shares that the graphs of the first and of the
second half of the batches hold on their own. It measures how far the sampled hot set
has converged, not what time-based sampling cannot see; the estimate is printed (and
written to the batches file) whenever there are at least 200 batches
(docs/sampling.md says how close it came on the programs measured). In process its
bursts are 200 PCs long unless --burst is given: a burst then walks further from
where time is spent, into the code the estimate cannot see (sqlite3, four hand runs
each: 91.4% on average from about 10,000 runs, against 89.7% with bursts of 100;
89.3% from 59,000 runs with 25), and the cost bound still holds, through the interval.

--measure-overhead runs the program --repeat times unsampled and --repeat times
sampled, alternating, in this invocation (stdin is read once and replayed; the
unsampled runs' output is discarded), and reports the ratios of the total CPU time
(user + system of the whole process tree, plus the tracer's under ptrace) and of the
total wall time of the sampled runs to the unsampled ones, with 95% confidence
intervals (the delta method over the pairs), and the medians of the pairs' ratios;
runs the sampler left plain count in the sampled arm, as they count in its cost.
With --repeat alone, the
batches of all runs go to one file.

--env starts nothing: it prints the export lines (LD_PRELOAD with the in-process
sampler first, its configuration from --interval, --burst, --overhead, --seed,
--stack-bytes, --stepping and --task-clock, and the records' path) that make every
program started with them — by a shell, a script, mpirun, a test harness — record
itself, with no fragprof process in its tree: each process writes its own record,
-o FILE.<pid>, at its exit (none when a signal kills it), which 'hotcfg' and
'export' read like any record; 'hotcfg' prints the cost the library measured.

Examples:
  fragprof sample -- ./prog args < input
  fragprof sample --interval 1ms --burst 50 -o run.batches -- gzip -c big.txt > /dev/null
  fragprof sample --exact -o exact.cfg --max-instructions 50000000 -- ./prog args
  fragprof sample --format profile -o run.fpp -- ./prog args && fragprof show run.fpp
  fragprof sample --measure-overhead --repeat 20 -- xz -9 -c data > /dev/null
  fragprof sample --overhead 5% -o run.batches -- ./prog args
  fragprof sample --until-similarity 90% -o run.batches -- sqlite3 :memory: < q.sql
  fragprof sample --sampler ptrace --overhead 5% -o run.batches -- ./prog args
  fragprof sample --pid 1234 -o server.batches     # Ctrl-C to stop
  eval "$(fragprof sample --env -o run.rec)"; ./prog args; fragprof hotcfg run.rec.* --top 20`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.probeHost {
				return runProbeHost(e, args)
			}
			if f.env {
				if f.format != "" {
					return usagef("sample: --env makes records: --format does not apply")
				}
				return runSampleEnv(c, e, &f, args)
			}
			if f.selfCPU { // exitCost's child: its own CPU time so far, in ns
				var self syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &self)
				fmt.Fprintln(e.stdout, rusageCPU(self).Nanoseconds())
				return nil
			}
			// The commands run before this one (in a test's process) are not its cost.
			var children0 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children0)
			own, prog := splitDash(c, args)
			if len(prog) == 0 && len(own) > 0 {
				prog = own
			}
			s, err := f.session(c, e, prog)
			if err != nil {
				return err
			}
			intr := catchInterrupts() // Ctrl-C: keep what was sampled, exit 130
			defer intr.stop()
			if f.exact {
				o := sample.ExactOptions{MaxInstructions: f.maxInsns, Stepping: s.Options.Stepping}
				return runExact(e, s.Target, o, cmp.Or(f.out, "exact.cfg"), f.format == "profile")
			}
			s.Interrupted = func() bool { return intr.caught() != 0 }
			res, err := f.write(s, e, intr, children0)
			if err != nil {
				return err
			}
			if res.Graph != nil {
				files := sample.NewFiles(res.Graph.Maps)
				res.Graph.Symbolize(files)
				if err := writeHotGraph(f.graphOut, res.Graph, len(res.Traced), files.Lines); err != nil {
					return err
				}
			}
			if res.Last.ExitCode > 128 {
				intr.settle(syscall.Signal(res.Last.ExitCode - 128))
			}
			if code := intr.code(); code != 0 {
				kept := "the batches so far are kept"
				if f.format == "profile" {
					kept = "the profile of the batches so far is written"
				}
				fmt.Fprintf(e.stderr, "fragprof sample: %s: %s\n", intr.mark(), kept)
				return exitError{code}
			}
			if res.Last.Exited && res.Last.ExitCode != 0 {
				return exitError{res.Last.ExitCode}
			}
			return nil
		},
	}
	f.add(c)
	return c
}

// sampleFlags are the flags of `fragprof sample`.
type sampleFlags struct {
	interval                time.Duration
	burst, repeat, pid      int
	out, stepping, graphOut string
	format                  string
	sampler                 string
	stackBytes              int
	overheadTarget          string
	exact, overhead, aslr   bool
	taskClock, probeHost    bool
	env                     bool
	selfCPU                 bool
	untilSim                string
	maxInsns, seed          uint64
}

// add defines the flags on c.
func (f *sampleFlags) add(c *cobra.Command) {
	fl := c.Flags()
	fl.DurationVar(&f.interval, "interval", 0, "mean time between bursts (default 1ms of each thread's CPU time in process, 3ms of wall time under ptrace)")
	fl.IntVar(&f.burst, "burst", 25, "PCs per burst")
	fl.StringVar(&f.overheadTarget, "overhead", "", "adapt the interval to hold the sampler's cost at this share of run time (e.g. 5%); default 4% in process, none under ptrace")
	fl.StringVarP(&f.out, "output", "o", "", "output file (default sample.batches, exact.cfg with --exact, sample.fpp with --format profile)")
	fl.StringVar(&f.format, "format", "", "output: the batches (a record or batches file, the default) or the exact graph (JSON, with --exact); profile: a profile file, with a sampled run's edge rates")
	fl.IntVar(&f.pid, "pid", 0, "attach to this running process instead of starting one")
	fl.BoolVar(&f.exact, "exact", false, "trace every instruction and write the exact CFG")
	fl.Uint64Var(&f.maxInsns, "max-instructions", 0, "with --exact: stop (detach, and end a program fragprof started) after this many instructions; 0: no bound")
	fl.StringVar(&f.stepping, "stepping", "auto", "auto, breakpoints or singlestep")
	fl.BoolVar(&f.overhead, "measure-overhead", false, "also run the program unsampled, alternating, and report the CPU-time and wall-time ratios")
	fl.IntVar(&f.repeat, "repeat", 1, "run the program this many times (batches accumulate)")
	fl.BoolVar(&f.aslr, "aslr", false, "keep address-space randomisation")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the interval jitter")
	fl.StringVar(&f.graphOut, "graph", "", "also build the Bursts hot CFG online and write it (JSON, as 'hotcfg' prints it) to this file")
	fl.StringVar(&f.sampler, "sampler", "auto", "auto, inprocess (preloaded library) or ptrace")
	fl.BoolVar(&f.taskClock, "task-clock", false, "in process: time bursts with perf's task clock (high resolution, for short runs) instead of POSIX CPU-time timers (the kernel's tick); costs more than it measures")
	fl.StringVar(&f.untilSim, "until-similarity", "", "repeat runs (at most --repeat, default 100000) until the estimated similarity of the hot CFG reaches this share (e.g. 90%)")
	fl.IntVar(&f.stackBytes, "stack-bytes", 4096, "in process: bytes of stack copied at each burst's start, for call stacks (0: none)")
	fl.BoolVar(&f.probeHost, "probe-host", false, "print which stepping methods of the in-process sampler deliver on this host (a trial burst each) and exit")
	fl.BoolVar(&f.env, "env", false, "print the shell export lines that make any program started with them record itself to -o FILE.<pid> (default sample.rec.<pid>), with no fragprof process in its tree, and exit")
	fl.BoolVar(&f.selfCPU, "self-cpu", false, "print this process's CPU time so far, in ns, and exit (how sample measures its own exit)")
	fl.MarkHidden("self-cpu")
}

// session checks the flags, for the program prog (the arguments after --, or the
// command's own), and returns the session they ask for.
func (f *sampleFlags) session(c *cobra.Command, e *env, prog []string) (*sample.Session, error) {
	if f.pid == 0 && len(prog) == 0 {
		return nil, usagef("sample: name the program after --, or give --pid")
	}
	if f.pid != 0 && len(prog) > 0 {
		return nil, usagef("sample: --pid takes no program (got %v)", prog)
	}
	st, ok := sample.ParseStepping(f.stepping)
	if !ok {
		return nil, usagef("sample: --stepping %q: want auto, breakpoints or singlestep", f.stepping)
	}
	if f.burst <= 0 || f.interval < 0 || f.repeat <= 0 {
		return nil, usagef("sample: --burst, --interval and --repeat must be positive")
	}
	if f.sampler != "auto" && f.sampler != "inprocess" && f.sampler != "ptrace" {
		return nil, usagef("sample: --sampler %q: want auto, inprocess or ptrace", f.sampler)
	}
	if f.stackBytes < 0 || f.stackBytes > 65536 {
		return nil, usagef("sample: --stack-bytes %d: want 0 to 65536", f.stackBytes)
	}
	if f.format != "" && f.format != "profile" {
		return nil, usagef("sample: --format %q: want profile (or none: the batches, or the exact graph with --exact)", f.format)
	}
	if f.pid != 0 && (f.overhead || f.repeat > 1 || f.untilSim != "") {
		return nil, usagef("sample: --measure-overhead, --repeat and --until-similarity need a program to start")
	}
	s := &sample.Session{
		Target:  sample.Target{PID: f.pid, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, ASLR: f.aslr},
		Command: prog, Sampler: f.sampler, StackBytes: f.stackBytes, Repeat: f.repeat,
		BurstGiven: c.Flags().Changed("burst"), MeasureOverhead: f.overhead, Online: f.graphOut != "",
		OverheadText: f.overheadTarget, UntilText: f.untilSim, Log: e.stderr,
		Options: sample.Options{Interval: f.interval, Burst: f.burst, Stepping: st, Seed: f.seed, TaskClock: f.taskClock},
		Start: &sample.LazyCost{Read: func() (sample.StartCostResult, error) {
			return sample.CachedStartCost(startCostPairs, calibrating(e, "the in-process sampler's start (61 pairs of runs of true(1), a few seconds)"))
		}},
	}
	if len(prog) > 0 {
		s.Target.Path, s.Target.Args = prog[0], prog[1:]
	}
	if f.untilSim != "" {
		v, err := parseShare(f.untilSim)
		if err != nil || v <= 0 || v > 1 {
			return nil, usagef("sample: --until-similarity %q: want a share such as 90%% or 0.9", f.untilSim)
		}
		if f.overhead || f.exact {
			return nil, usagef("sample: --until-similarity does not go with --measure-overhead or --exact")
		}
		s.Until = v
		if !c.Flags().Changed("repeat") {
			s.Repeat = 0 // sample.DefaultUntilRuns
		}
	}
	if f.overheadTarget != "" {
		v, err := parseShare(f.overheadTarget)
		if err != nil || v <= 0 || v >= 1 {
			return nil, usagef("sample: --overhead %q: want a share such as 5%% or 0.05", f.overheadTarget)
		}
		s.Options.Overhead = v
	}
	return s, nil
}

// sampleCosts returns what the report's estimate of the whole cost asks for (the
// Costs outside the program's runs), when it asks. A Ctrl-C waits for no
// calibration: what is not yet measured on this machine is left out of an
// interrupted run's estimate. children0 is the children's usage before the command.
func sampleCosts(e *env, intr *interrupts, start *sample.LazyCost, children0 syscall.Rusage) func() (sample.Costs, error) {
	return func() (sample.Costs, error) {
		var c sample.Costs
		if intr.caught() == 0 || start.Done() {
			var err error
			if c.Start, err = start.Get(); err != nil {
				return c, err
			}
		}
		if intr.caught() == 0 {
			var err error
			if c.Exit, err = exitCost(e); err != nil {
				// A calibration that failed does not fail the sampling.
				fmt.Fprintf(e.stderr, "fragprof sample: %v: the cost below leaves fragprof's exit out\n", err)
			}
		}
		var self, children syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
		c.Self, c.Children = rusageCPU(self), rusageCPU(children)-rusageCPU(children0)
		return c, nil
	}
}

// write samples the session s into the file -o names and prints its report: the
// batches (Session.Write), or with --format profile the profile of their hot CFG,
// from the batches written to a temporary directory first and left out.
func (f *sampleFlags) write(s *sample.Session, e *env, intr *interrupts, children0 syscall.Rusage) (*sample.Result, error) {
	costs := sampleCosts(e, intr, s.Start, children0)
	if f.format != "profile" {
		out := cmp.Or(f.out, "sample.batches")
		res, err := s.Write(out)
		if err != nil {
			return nil, err
		}
		return res, res.Report(e.stderr, out, costs)
	}
	dir, err := os.MkdirTemp("", "fragprof-sample-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	batches := filepath.Join(dir, "run.batches")
	res, err := s.Write(batches)
	if err != nil {
		return nil, err
	}
	if err := res.Report(e.stderr, "", costs); err != nil {
		return nil, err
	}
	data, err := hotcfg.ReadBatchFiles([]string{batches})
	if err != nil {
		return nil, err
	}
	p := sampledProfile(data)
	return res, atomicfile.WriteWith(cmp.Or(f.out, "sample.fpp"), p.Write)
}

// sampledProfile is the profile of the hot CFG of data that 'fragprof hotcfg
// --format profile' writes with its defaults: the Bursts builder with the edges
// the code implies, symbolized from the program files (hotcfg.Graph.Profile).
func sampledProfile(data *hotcfg.Samples) *profile.Profile {
	files := sample.NewFiles(data.Maps)
	b := &hotcfg.Builder{Samples: data, Code: hotcfg.Chain{data.Code, files}, Infer: true}
	g := b.Graph("bursts", hotcfg.DefaultParams)
	g.Symbolize(files)
	return g.Profile(data.Runs, files.Lines)
}

// runExact traces the target t exactly and writes its graph to out: the JSON
// document of the graph, or its profile when asProfile.
func runExact(e *env, t sample.Target, o sample.ExactOptions, out string, asProfile bool) error {
	start := time.Now()
	g, s, err := sample.Exact(t, o, nil)
	if err != nil {
		return err
	}
	files := sample.NewFiles(g.Maps)
	g.Symbolize(files)
	if asProfile {
		err = atomicfile.WriteWith(out, g.Profile(1, files.Lines).Write)
	} else {
		err = writeHotGraph(out, g, 1, files.Lines)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof sample --exact: %d instructions, %d blocks, %d edges in %v (%.2f µs per instruction)\n",
		s.Instructions, len(g.Blocks), len(g.Edges), time.Since(start).Round(time.Millisecond),
		float64(time.Since(start).Microseconds())/float64(max(s.Instructions, 1)))
	for _, n := range s.Notes {
		fmt.Fprintf(e.stderr, "fragprof sample: %s\n", n)
	}
	if s.Exited && s.ExitCode != 0 {
		return exitError{s.ExitCode}
	}
	return nil
}

// writeHotGraph writes the JSON document of g, a graph of runs runs, to file
// (report.GraphJSON).
func writeHotGraph(file string, g *hotcfg.Graph, runs int, lines func(*hotcfg.Block) []int) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := report.GraphJSON(g, runs, lines, nil).Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// startCostPairs is how many pairs of runs of true(1) measure the in-process
// sampler's start (sample.StartCost): about 90 ms. With 31 pairs the median
// difference of two CPU times that each vary by ±50 µs here read 22–81 µs in three
// invocations in a row.
const startCostPairs = 61

// parseShare parses a share written as a percentage ("5%") or a fraction ("0.05").
func parseShare(s string) (float64, error) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		return v / 100, err
	}
	return strconv.ParseFloat(s, 64)
}

// runProbeHost prints, one line each, whether each stepping method of the
// in-process sampler delivers on this host (sample.ProbeSteps).
func runProbeHost(e *env, args []string) error {
	if len(args) > 0 {
		return usagef("sample: --probe-host takes no program (got %v)", args)
	}
	r, ok, err := sample.ProbeSteps()
	if err != nil {
		return fmt.Errorf("sample --probe-host: %v", err)
	}
	if !ok {
		return fmt.Errorf("sample --probe-host: no dynamically linked true(1) on PATH to run the trials in: install coreutils")
	}
	for _, t := range r.Trials {
		fmt.Fprintf(e.stdout, "fragprof sample: this host: %s\n", t)
	}
	return nil
}

// rusageCPU is the user + system time of r.
func rusageCPU(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// exitPairs is how many runs of fragprof measure its exit (exitCost), and
// exitTimeout how long each may take.
const (
	exitPairs   = 7
	exitTimeout = 30 * time.Second
)

// exitCost returns the CPU time fragprof's process spends after its last report,
// which no getrusage of its own can see: the exit, the kernel's teardown of its
// address space and threads. It is measured once per machine and fragprof binary
// (sample.CachedCost): exitPairs runs of this executable with the hidden
// --self-cpu, each the median difference of the CPU time wait4 gives for it and the
// CPU time it printed just before its end. Not measured (0) when the executable
// cannot be found, or is a test binary (which would run its tests instead); each
// run has exitTimeout to answer.
func exitCost(e *env) (sample.StartCostResult, error) {
	exe, err := os.Executable()
	if err != nil || testing.Testing() {
		return sample.StartCostResult{}, nil
	}
	key := sample.MachineKey() + "fragprof " + sample.FileIdentity(exe) + "\n"
	return sample.CachedCost("exitcost", key, calibrating(e, fmt.Sprintf("fragprof's own exit (%d runs of it)", exitPairs)), func() (time.Duration, bool, error) {
		var diffs []float64
		for i := 0; i < exitPairs; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
			cmd := exec.CommandContext(ctx, exe, "sample", "--self-cpu")
			out, err := cmd.Output()
			cancel()
			if err != nil {
				return 0, false, fmt.Errorf("measuring fragprof's own exit with '%s sample --self-cpu' (at most %v a run): %v; it is tried again at the next report", exe, exitTimeout, err)
			}
			ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
			if err != nil {
				return 0, false, fmt.Errorf("measuring fragprof's own exit: '%s sample --self-cpu' printed %q, not a CPU time", exe, out)
			}
			whole := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			diffs = append(diffs, float64(whole-time.Duration(ns)))
		}
		return time.Duration(max(stats.Median(diffs), 0)), true, nil
	})
}

// calibrating returns the note CachedCost gives before it measures: a line on
// stderr that says what fragprof waits for, and where it keeps the result.
func calibrating(e *env, what string) func(string) {
	return func(file string) {
		fmt.Fprintf(e.stderr, "fragprof sample: measuring %s once on this machine, kept in %s\n", what, file)
	}
}
