// This file implements `fragprof sample`.

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/sample"
	"github.com/fragprof/fragprof/internal/stats"
)

func newSampleCmd(e *env) *cobra.Command {
	var (
		interval                time.Duration
		burst, repeat, pid      int
		out, stepping, graphOut string
		sampler                 string
		stackBytes              int
		overheadTarget          string
		exact, overhead, aslr   bool
		taskClock, probeHost    bool
		selfCPU                 bool
		untilSim                string
		maxInsns, seed          uint64
	)
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

With --exact, every instruction of every thread is executed under ptrace and the
exact dynamic CFG (machine blocks split at every observed branch target, edges with
transition counts, the instruction total) is written to -o (default exact.cfg) as
JSON: the reference for 'fragprof hotcfg --compare'. It is slow by nature (about
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

Examples:
  fragprof sample -- ./prog args < input
  fragprof sample --interval 1ms --burst 50 -o run.batches -- gzip -c big.txt > /dev/null
  fragprof sample --exact -o exact.cfg --max-instructions 50000000 -- ./prog args
  fragprof sample --measure-overhead --repeat 20 -- xz -9 -c data > /dev/null
  fragprof sample --overhead 5% -o run.batches -- ./prog args
  fragprof sample --until-similarity 90% -o run.batches -- sqlite3 :memory: < q.sql
  fragprof sample --sampler ptrace --overhead 5% -o run.batches -- ./prog args
  fragprof sample --pid 1234 -o server.batches     # Ctrl-C to stop`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if probeHost {
				return runProbeHost(e, args)
			}
			if selfCPU { // exitCost's child: its own CPU time so far, in ns
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
			if pid == 0 && len(prog) == 0 {
				return usagef("sample: name the program after --, or give --pid")
			}
			if pid != 0 && len(prog) > 0 {
				return usagef("sample: --pid takes no program (got %v)", prog)
			}
			st, ok := sample.ParseStepping(stepping)
			if !ok {
				return usagef("sample: --stepping %q: want auto, breakpoints or singlestep", stepping)
			}
			if burst <= 0 || interval < 0 || repeat <= 0 {
				return usagef("sample: --burst, --interval and --repeat must be positive")
			}
			if sampler != "auto" && sampler != "inprocess" && sampler != "ptrace" {
				return usagef("sample: --sampler %q: want auto, inprocess or ptrace", sampler)
			}
			if stackBytes < 0 || stackBytes > 65536 {
				return usagef("sample: --stack-bytes %d: want 0 to 65536", stackBytes)
			}
			if pid != 0 && (overhead || repeat > 1 || untilSim != "") {
				return usagef("sample: --measure-overhead, --repeat and --until-similarity need a program to start")
			}
			var until float64
			if untilSim != "" {
				v, err := parseShare(untilSim)
				if err != nil || v <= 0 || v > 1 {
					return usagef("sample: --until-similarity %q: want a share such as 90%% or 0.9", untilSim)
				}
				if overhead || exact {
					return usagef("sample: --until-similarity does not go with --measure-overhead or --exact")
				}
				until = v
				if !c.Flags().Changed("repeat") {
					repeat = defaultUntilRuns
				}
			}
			target := sample.Target{PID: pid, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, ASLR: aslr}
			if len(prog) > 0 {
				target.Path, target.Args = prog[0], prog[1:]
			}
			var share float64
			if overheadTarget != "" {
				v, err := parseShare(overheadTarget)
				if err != nil || v <= 0 || v >= 1 {
					return usagef("sample: --overhead %q: want a share such as 5%% or 0.05", overheadTarget)
				}
				share = v
			}
			intr := catchInterrupts() // Ctrl-C: keep what was sampled, exit 130
			defer intr.stop()
			if exact {
				if out == "" {
					out = "exact.cfg"
				}
				return runExact(e, target, sample.ExactOptions{MaxInstructions: maxInsns, Stepping: st}, out)
			}
			if out == "" {
				out = "sample.batches"
			}
			var input []byte
			if overhead || repeat > 1 || until > 0 {
				b, err := io.ReadAll(e.stdin)
				if err != nil {
					return err
				}
				input = b
			}
			if inProc, _ := chooseSampler(sampler, pid, prog); recordable(inProc, pid, repeat, overhead, graphOut, until) {
				return runRecord(e, intr, newRecordRun(target, prog, interval, burst, st, seed, share, overheadTarget, taskClock, stackBytes, out, children0))
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			defer f.Close()
			w := hotcfg.NewWriter(f)
			w.Info("cmd", strings.Join(prog, " "))
			useInProcess, why := chooseSampler(sampler, pid, prog)
			if interval == 0 {
				interval = 3 * time.Millisecond
				if useInProcess {
					interval = time.Millisecond
				}
			}
			w.Info("interval", interval.String())
			if until > 0 && useInProcess && !c.Flags().Changed("burst") {
				burst = untilBurst
			}
			w.Info("burst", fmt.Sprint(burst))
			var online *hotcfg.Bursts
			var code hotcfg.InsnTable
			if graphOut != "" {
				code = hotcfg.InsnTable{}
				online = hotcfg.NewBursts(code)
			}
			seq := 0
			// Every batch and its instructions, for the similarity's own estimate.
			var kept []hotcfg.Batch
			insns := hotcfg.InsnTable{}
			sink := func(b hotcfg.Batch, c hotcfg.Code) {
				seq++
				b.Seq = seq
				w.Batch(b, c)
				kept = append(kept, b)
				for _, pc := range b.PCs {
					if in, ok := c.Insn(pc); ok {
						insns[pc] = in
					}
				}
				if online != nil {
					for _, pc := range b.PCs {
						if in, ok := c.Insn(pc); ok {
							code[pc] = in
						}
					}
					online.AddBatch(b)
				}
			}
			opts := sample.Options{Interval: interval, Burst: burst, Stepping: st, Seed: seed, Overhead: share, TaskClock: taskClock}
			if share > 0 {
				w.Info("overhead", overheadTarget)
			}
			if sampler == "inprocess" && !useInProcess {
				return fmt.Errorf("sample: --sampler inprocess: %s", why)
			}
			if useInProcess {
				if overheadTarget == "" {
					opts.Overhead = defaultInProcessShare
					w.Info("overhead", fmt.Sprintf("%g%%", 100*defaultInProcessShare))
				}
				w.Info("sampler", "inprocess")
			} else {
				w.Info("sampler", "ptrace")
				if sampler == "auto" && why != "" {
					fmt.Fprintf(e.stderr, "fragprof sample: using ptrace: %s\n", why)
				}
			}
			var plain, traced []sample.PlainRun
			inProcessRuns := 0
			// The library's start, measured on true(1) once per machine and cached,
			// read when first needed: by the thinning of repeated runs, or by the report.
			var start sample.StartCostResult
			startRead := false
			startCost := func() (time.Duration, bool, error) {
				if !startRead {
					var err error
					if start, err = sample.CachedStartCost(startCostPairs, calibrating(e, "the in-process sampler's start (61 pairs of runs of true(1), a few seconds)")); err != nil {
						return 0, false, err
					}
					startRead = true
				}
				return start.Cost, start.OK, nil
			}
			var steps sample.StepReport // how the in-process bursts were stepped
			var thin *sample.Thinning   // in process, repeated runs: which runs to sample
			thinned := 0
			if useInProcess && repeat > 1 {
				thin = sample.NewThinning(opts.Overhead, 0, seed)
			}
			var last *sample.Stats
			var total sample.Stats
			var maps hotcfg.Maps
			var notes []string
			var est simEstimate
			estOK := false
			nextCheck := minEstimateBatches
			reached := 0 // consecutive checks at or above --until-similarity
			for i := 0; i < repeat; i++ {
				t := target
				if input != nil {
					t.Stdin = bytes.NewReader(input)
				}
				// Sampled and plain runs alternate, the sampled one first on odd
				// runs, so that a trend in the machine's load falls on both alike.
				plainRun := func() error {
					pt := target
					if input != nil {
						pt.Stdin = bytes.NewReader(input)
					}
					// /dev/null itself, not io.Discard: a writer that is not a
					// file makes exec copy the output through a pipe and a
					// goroutine, which the sampled run does not pay.
					null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
					if err != nil {
						return err
					}
					defer null.Close()
					pt.Stdout, pt.Stderr = null, null
					r, err := sample.Plain(pt)
					if err != nil {
						return err
					}
					plain = append(plain, r)
					if thin != nil {
						thin.Plain(r.CPU)
					}
					return nil
				}
				if overhead && i%2 == 0 {
					if err := plainRun(); err != nil {
						return err
					}
				}
				opts.Seed = seed + uint64(i)
				var s *sample.Stats
				var err error
				if useInProcess && thin != nil && !thin.Next() {
					// Left plain, to hold the sampler's cost within --overhead
					// (sample.Thinning); it is the sampled arm of --measure-overhead.
					r, err := sample.Plain(t)
					if err != nil {
						return err
					}
					thin.Plain(r.CPU)
					thinned++
					s = &sample.Stats{Wall: r.Wall, CPU: r.CPU, ExitCode: r.ExitCode, Exited: true, Interrupted: intr.caught() != 0}
				} else if useInProcess {
					if total.Batches > 0 && total.Ticks == 0 {
						// Each run's first gaps start from the burst cost learned in the runs before it.
						opts.BurstCost = total.SelfCost / time.Duration(total.Batches)
					}
					s, err = sample.Preload(t, opts, stackBytes, func(b sample.Burst, c hotcfg.Code) { sink(b.Batch, c) })
					inProcessRuns++
					if err == nil {
						steps.Merge(s.Steps)
					}
					if err == nil && thin != nil {
						if inProcessRuns == 1 {
							if thin.Start, _, err = startCost(); err != nil {
								return err
							}
						}
						thin.Sampled(s.CPU, s.SelfCost, s.SetupCost)
					}
					if err == nil && s.Conflict != 0 && i+1 < repeat {
						useInProcess = false
						notes = append(notes, fmt.Sprintf("run %d: the program handles %v itself: the remaining runs use ptrace", i+1, s.Conflict))
						w.Info("sampler", "inprocess+ptrace")
					}
				} else {
					if opts.Overhead > 0 && total.Ticks > 0 {
						// Each run starts from the cost learned in the runs before it.
						opts.Interval = max(time.Duration(float64(total.TickTime)/float64(total.Ticks)/opts.Overhead), time.Microsecond)
					}
					s, err = sample.Sample(t, opts, sink, nil)
				}
				if err != nil {
					return err
				}
				if overhead && i%2 == 1 {
					if err := plainRun(); err != nil {
						return err
					}
				}
				traced = append(traced, sample.PlainRun{Wall: s.Wall, CPU: s.CPU})
				total.Batches += s.Batches
				total.Sampled += s.Sampled
				total.Skipped += s.Skipped
				total.Ticks += s.Ticks
				total.TickTime += s.TickTime
				total.SelfCost += s.SelfCost
				total.SetupCost += s.SetupCost
				total.Wall += s.Wall
				total.CPU += s.CPU
				last = s
				// The mappings of every run: a run's own are read when its bursts
				// meet code outside the known ones, so the last run alone may lack
				// a library the others sampled. Runs place code alike (no ASLR).
				for _, m := range s.Maps {
					maps.Add(m)
				}
				if s.Interrupted {
					break
				}
				if until > 0 && len(kept) >= nextCheck {
					// Checked each time the batches have grown by a quarter, so
					// that the checks cost a few times one estimate in all.
					nextCheck = len(kept) + (len(kept)+3)/4
					// Two checks in a row: one estimate alone at the target
					// stopped sqlite3 at 89.4% (docs/sampling.md).
					if est, estOK = estimateSimilarity(kept, insns, maps, 0.9); estOK && est.Similarity >= until {
						reached++
					} else {
						reached = 0
					}
					if untilStops(reached, len(kept), est.HotEdges) {
						break
					}
				}
			}
			if len(kept) >= minEstimateBatches && (!estOK || est.Batches != len(kept)) {
				est, estOK = estimateSimilarity(kept, insns, maps, 0.9)
			}
			if estOK {
				w.Info("estimated_similarity", fmt.Sprintf("%.4f", est.Similarity))
			}
			for _, m := range maps {
				w.Map(m)
			}
			w.Info("batches", fmt.Sprint(total.Batches))
			w.Info("sampled", fmt.Sprint(total.Sampled))
			w.Info("runs", fmt.Sprint(len(traced)))
			if thinned > 0 {
				w.Info("sampled_runs", fmt.Sprint(len(traced)-thinned))
			}
			if inProcessRuns > 0 {
				w.Info("stepping", steps.String())
			}
			if err := w.Flush(); err != nil {
				return err
			}
			walls := make([]time.Duration, len(traced))
			for i, r := range traced {
				walls[i] = r.Wall
			}
			fmt.Fprintf(e.stderr, "fragprof sample: %d batches, %d PCs sampled (%d bursts skipped) in %d run(s), %v per run (median)\n",
				total.Batches, total.Sampled, total.Skipped, len(traced), sampleMedian(walls))
			fmt.Fprintf(e.stderr, "fragprof sample: share of instructions: run 'fragprof hotcfg %s --compare EXACT' (sampled_fraction) against 'sample --exact'\n", out)
			if total.Ticks > 0 {
				// No share of run time: the tracer's own time misses most of what
				// ptrace costs the program (context switches, caches: +12-15% measured
				// against 4.5% so estimated). --measure-overhead
				// measures it.
				fmt.Fprintf(e.stderr, "fragprof sample: sampler time %v in %d ticks (%.0f µs per burst; the program's cost is larger: --measure-overhead)\n",
					total.TickTime.Round(time.Microsecond), total.Ticks, float64(total.TickTime.Microseconds())/float64(max(total.Batches, 1)))
			}
			if inProcessRuns > 0 {
				fmt.Fprintf(e.stderr, "fragprof sample: stepping: %s\n", steps)
			}
			if inProcessRuns > 0 && total.Ticks == 0 {
				// The bursts' own CPU time, the mappings' read at a process's first
				// burst, and the library's start, which no clock of the library can
				// see, measured on true(1) once per machine: on runs of a few
				// milliseconds the start and the mappings are most of the cost.
				// fragprof's own CPU time and that of the other commands it ran
				// are added: the share is of everything it adds to the process tree.
				// A Ctrl-C waits for no calibration: what is not yet measured on this
				// machine is left out of an interrupted run's estimate.
				if intr.caught() == 0 || startRead {
					if _, _, err := startCost(); err != nil {
						return err
					}
				}
				inProgram := total.SelfCost + total.SetupCost + time.Duration(inProcessRuns)*start.Cost
				var runs time.Duration // every run of the program, sampled, thinned and plain
				for _, r := range append(append([]sample.PlainRun(nil), traced...), plain...) {
					runs += r.CPU
				}
				var exit sample.StartCostResult
				if intr.caught() == 0 {
					var err error
					if exit, err = exitCost(e); err != nil {
						// A calibration that failed does not fail the sampling.
						fmt.Fprintf(e.stderr, "fragprof sample: %v: the cost below leaves fragprof's exit out\n", err)
					}
				}
				fmt.Fprintf(e.stderr, "fragprof sample: %s\n", wholeCost(total, inProgram, runs+rusageCPU(children0), inProcessRuns, start, exit))
			}
			if thinned > 0 {
				fmt.Fprintf(e.stderr, "fragprof sample: %d of %d runs sampled, drawn at random; the other %d ran plain, to hold the sampler's cost within --overhead %g%%: its start alone, %.0f µs a run, is %.1f%% of a run's %v of CPU (docs/sampling.md)\n",
					len(traced)-thinned, len(traced), thinned, 100*opts.Overhead, float64(thin.Start.Nanoseconds())/1e3,
					100*float64(thin.Start)/float64(max(total.CPU/time.Duration(len(traced)), 1)), (total.CPU / time.Duration(len(traced))).Round(time.Microsecond))
				if m, ok := thin.Measured(); ok {
					fmt.Fprintf(e.stderr, "fragprof sample: its cost measured by the runs left plain: a sampled run took %v more CPU than a plain one (the start, the bursts and what they cost the program): %.2f%% of the runs' CPU time (measured)\n",
						m.Round(time.Microsecond), 100*float64(time.Duration(len(traced)-thinned)*m)/float64(max(total.CPU, 1)))
				}
			}
			if estOK {
				fmt.Fprintf(e.stderr, "fragprof sample: estimated similarity %.1f%% (each half of the %d batches holds at least that share of the %d hot edges of all of them; docs/sampling.md)\n",
					100*est.Similarity, est.Batches, est.HotEdges)
			}
			if until > 0 && (!estOK || est.Similarity < until) {
				fmt.Fprintf(e.stderr, "fragprof sample: --until-similarity %s not reached in %d runs (%d batches): raise --repeat\n", untilSim, len(traced), len(kept))
			}
			if overhead {
				reportOverhead(e.stderr, traced, plain)
			}
			for _, n := range append(notes, last.Notes...) {
				fmt.Fprintf(e.stderr, "fragprof sample: %s\n", n)
			}
			if online != nil {
				g := online.Graph()
				g.Maps = maps
				if err := writeHotGraph(graphOut, g, nil); err != nil {
					return err
				}
			}
			if last != nil && last.ExitCode > 128 {
				intr.settle(syscall.Signal(last.ExitCode - 128))
			}
			if code := intr.code(); code != 0 {
				fmt.Fprintf(e.stderr, "fragprof sample: %s: the batches so far are kept\n", intr.mark())
				return exitError{code}
			}
			if last.Exited && last.ExitCode != 0 {
				return exitError{last.ExitCode}
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.DurationVar(&interval, "interval", 0, "mean time between bursts (default 1ms of each thread's CPU time in process, 3ms of wall time under ptrace)")
	fl.IntVar(&burst, "burst", 25, "PCs per burst")
	fl.StringVar(&overheadTarget, "overhead", "", "adapt the interval to hold the sampler's cost at this share of run time (e.g. 5%); default 4% in process, none under ptrace")
	fl.StringVarP(&out, "output", "o", "", "output file (default sample.batches, or exact.cfg with --exact)")
	fl.IntVar(&pid, "pid", 0, "attach to this running process instead of starting one")
	fl.BoolVar(&exact, "exact", false, "trace every instruction and write the exact CFG")
	fl.Uint64Var(&maxInsns, "max-instructions", 0, "with --exact: stop (detach, and end a program fragprof started) after this many instructions; 0: no bound")
	fl.StringVar(&stepping, "stepping", "auto", "auto, breakpoints or singlestep")
	fl.BoolVar(&overhead, "measure-overhead", false, "also run the program unsampled, alternating, and report the CPU-time and wall-time ratios")
	fl.IntVar(&repeat, "repeat", 1, "run the program this many times (batches accumulate)")
	fl.BoolVar(&aslr, "aslr", false, "keep address-space randomisation")
	fl.Uint64Var(&seed, "seed", 1, "seed of the interval jitter")
	fl.StringVar(&graphOut, "graph", "", "also build the Bursts hot CFG online and write it (JSON) to this file")
	fl.StringVar(&sampler, "sampler", "auto", "auto, inprocess (preloaded library) or ptrace")
	fl.BoolVar(&taskClock, "task-clock", false, "in process: time bursts with perf's task clock (high resolution, for short runs) instead of POSIX CPU-time timers (the kernel's tick); costs more than it measures")
	fl.StringVar(&untilSim, "until-similarity", "", "repeat runs (at most --repeat, default 100000) until the estimated similarity of the hot CFG reaches this share (e.g. 90%)")
	fl.IntVar(&stackBytes, "stack-bytes", 4096, "in process: bytes of stack copied at each burst's start, for call stacks (0: none)")
	fl.BoolVar(&probeHost, "probe-host", false, "print which stepping methods of the in-process sampler deliver on this host (a trial burst each) and exit")
	fl.BoolVar(&selfCPU, "self-cpu", false, "print this process's CPU time so far, in ns, and exit (how sample measures its own exit)")
	fl.MarkHidden("self-cpu")
	return c
}

func runExact(e *env, t sample.Target, o sample.ExactOptions, out string) error {
	start := time.Now()
	g, s, err := sample.Exact(t, o, nil)
	if err != nil {
		return err
	}
	files := sample.NewFiles(g.Maps)
	g.Symbolize(files)
	if err := writeHotGraph(out, g, files.Lines); err != nil {
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

// writeHotGraph writes g as JSON to file.
func writeHotGraph(file string, g *hotcfg.Graph, lines func(*hotcfg.Block) []int) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := g.WriteJSON(f, nil, lines); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// defaultUntilRuns bounds the runs of --until-similarity when --repeat is not given.
const defaultUntilRuns = 100000

// minStopBatches is the fewest batches --until-similarity stops at. Below it the
// estimate ran far above the true similarity where the hot set is dominated by a
// few loops (prefixes of bench/sampling.sh's batches, a diagnosis: xz
// at 250 batches, 96.0% estimated against 53.2% true; it stopped one run at 80.3%);
// from 1,000 batches on it was within 7 points on xz, sqlite3, gzip and bzip2.
//
// It also stops no earlier than one batch per hot edge of the estimate (|Ĥ|): on
// large hot sets the split halves agree on the edges a burst reaches easily long
// before the rest are in. The stopping rule replayed on eight overlapping sequences
// of 12,332 batches of sqlite3's short workload (2,800–3,100 hot edges; three runs of
// sample, bursts of 200; a diagnosis): at 1,000 batches it stopped at
// 1,199–1,499 batches with 87.0–93.2% true similarity, 4 of 8 below 90%; at one
// batch per hot edge, at 2,929–3,662 with 89.9–94.4%, 1 of 8 below (and the truth
// levels off near 94% from 2,000 batches on, where no burst reaches the rest).
const minStopBatches = 1000

// untilStops reports whether --until-similarity stops: at reached checks in a row at
// or above the target, with batches batches and an estimated hot set of hotEdges
// edges (minStopBatches).
func untilStops(reached, batches, hotEdges int) bool {
	return reached >= 2 && batches >= max(minStopBatches, hotEdges)
}

// untilBurst is the in-process burst length of --until-similarity when --burst is
// not given. Short runs leave most of the cost bound unused (a CPU-time timer gives
// at most one burst per tick), so longer bursts cost nothing against it there; in
// long runs the interval grows with the burst's cost and the bound holds.
//
// Measured on sqlite3's short workload (four hand runs each, a
// diagnosis): bursts of 100 stopped at 87.8–91.4% true similarity (mean 89.7%),
// bursts of 200 at 88.4–92.8% (mean 91.4%) in as many runs (9,400–10,700); xz,
// gzip, bzip2 and lua5.4 stopped at 97.3–100% with 200.
const untilBurst = 200

// startCostPairs is how many pairs of runs of true(1) measure the in-process
// sampler's start (sample.StartCost): about 90 ms. With 31 pairs the median
// difference of two CPU times that each vary by ±50 µs here read 22–81 µs in three
// invocations in a row.
const startCostPairs = 61

// defaultInProcessShare is the in-process sampler's default --overhead: below the
// 5 % target with room for what the bursts' own CPU time does not count (starting
// the library, caches).
const defaultInProcessShare = 0.04

// chooseSampler says whether the in-process sampler runs, and why not when it does not.
func chooseSampler(sampler string, pid int, prog []string) (bool, string) {
	switch {
	case sampler == "ptrace":
		return false, ""
	case pid != 0:
		return false, "attaching to a running process needs ptrace"
	}
	return sample.Preloadable(prog[0])
}

// reportOverhead prints the ratios of the sampled runs' total CPU and wall times to
// those of the plain runs they alternated with, with 95 % delta-method intervals
// (stats.RatioInterval: the sampled arm may mix sampled and thinned runs), and beside
// them the medians of the pairs' ratios with their distribution-free intervals
// (stats.MedianInterval).
func reportOverhead(w io.Writer, traced, plain []sample.PlainRun) {
	n := min(len(traced), len(plain))
	if n == 0 {
		return
	}
	var tcpu, pcpu, twall, pwall, cpu, wall []float64
	for i := 0; i < n; i++ {
		tcpu = append(tcpu, float64(traced[i].CPU))
		pcpu = append(pcpu, float64(plain[i].CPU))
		twall = append(twall, float64(traced[i].Wall))
		pwall = append(pwall, float64(plain[i].Wall))
		if plain[i].CPU > 0 {
			cpu = append(cpu, float64(traced[i].CPU)/float64(plain[i].CPU))
		}
		wall = append(wall, float64(traced[i].Wall)/float64(plain[i].Wall))
	}
	ratio := func(y, x []float64) string {
		iv := stats.RatioInterval(y, x, 0.95)
		return fmt.Sprintf("%.3f [%.3f, %.3f] (%.0f%% CI)", iv.Center, iv.Lo, iv.Hi, 100*iv.Confidence)
	}
	median := func(xs []float64) string {
		iv := stats.MedianInterval(xs, 0.95)
		return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Center, iv.Lo, iv.Hi)
	}
	fmt.Fprintf(w, "fragprof sample: overhead: CPU time (user+sys, process tree) sampled/unsampled %s; median of the pairs' ratios %s\n", ratio(tcpu, pcpu), median(cpu))
	fmt.Fprintf(w, "fragprof sample: overhead: wall time sampled/unsampled %s; median of the pairs' ratios %s; totals of %d alternated pairs\n", ratio(twall, pwall), median(wall), n)
}

func sampleMedian(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

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

// wholeCost describes what fragprof added to the process tree, as a share of the
// program's own CPU time: the sampler inside the program (inProgram: the bursts,
// the mappings, the library's start), fragprof's own process (getrusage
// RUSAGE_SELF: its start, reading and writing the batches) and the other commands
// it ran (RUSAGE_CHILDREN less every run of the program: true(1) when the start
// cost was measured in this invocation, the C compiler when the library was
// built). The program's own CPU time is the sampled runs' (total.CPU) less
// inProgram; runs is the CPU time of every run of the program, the unsampled ones
// of --measure-overhead included, which are neither the program's nor counted
// (and of the children reaped before the command began).
//
// fragprof's own process also costs its exit (the kernel's teardown of its address
// space and threads, 4-6 ms of CPU at load 10 on this project's VM), after any
// report: exit, measured once per machine (exitCost), is added to it.
func wholeCost(total sample.Stats, inProgram, runs time.Duration, inProcessRuns int, start, exit sample.StartCostResult) string {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	own := rusageCPU(self) + exit.Cost
	others := max(rusageCPU(children)-runs, 0)
	program := max(total.CPU-inProgram, 1)
	how := "not measured: the run was interrupted, or no true(1) can be preloaded"
	switch {
	case start.OK && start.Measured:
		how = fmt.Sprintf("%.0f µs a run, measured now on true(1) and kept in %s", float64(start.Cost.Nanoseconds())/1e3, start.File)
	case start.OK:
		how = fmt.Sprintf("%.0f µs a run, measured on true(1) once on this machine (%s)", float64(start.Cost.Nanoseconds())/1e3, start.File)
	}
	return fmt.Sprintf("cost (estimate): in the program %v (bursts %v, %d of %.0f µs CPU each; the mappings %v; its start %v in %d run(s), %s); fragprof itself %v (its exit %v of it) and the commands it ran %v: %.2f%% over the program's own CPU time (%v)",
		inProgram.Round(time.Microsecond), total.SelfCost.Round(time.Microsecond), total.Batches,
		float64(total.SelfCost.Microseconds())/float64(max(total.Batches, 1)), total.SetupCost.Round(time.Microsecond),
		(time.Duration(inProcessRuns) * start.Cost).Round(time.Microsecond), inProcessRuns, how,
		own.Round(time.Microsecond), exit.Cost.Round(time.Microsecond), others.Round(time.Microsecond),
		100*float64(inProgram+own+others)/float64(program), program.Round(time.Microsecond))
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
