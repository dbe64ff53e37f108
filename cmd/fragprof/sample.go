// This file implements `fragprof sample`.

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/sample"
)

func init() { register(newSampleCmd) }

func newSampleCmd(e *env) *cobra.Command {
	var (
		interval                time.Duration
		burst, repeat, pid      int
		out, stepping, graphOut string
		overheadTarget          string
		exact, overhead, aslr   bool
		maxInsns, seed          uint64
	)
	c := &cobra.Command{
		Use:   "sample [flags] -- PROG [ARGS...]   |   sample --pid PID [flags]",
		Short: "Sample bursts of PCs of a native program with ptrace, or trace it exactly",
		Long: `Sample runs PROG with ARGS (or attaches to the running process PID) under ptrace
and, every --interval on average (each gap drawn uniformly in [I/2, 3I/2) so that
sampling does not alias with the program's own periods), stops each of its threads
that is running and records a burst of --burst consecutive program counters: a
batch. The program is not recompiled and does not see the sampler: threads are
stopped with PTRACE_INTERRUPT, never with a signal it could catch.

The batches go to -o (default sample.batches) in the streamable text format of
docs/batches.md, with each instruction's length, kind and static target decoded once
from the process's memory. 'fragprof hotcfg' builds hot CFGs from them; with
--graph FILE the Bursts builder also runs online and writes its graph as JSON.

With --exact, every instruction of every thread is executed under control and the
exact dynamic CFG (machine blocks split at every observed branch target, edges with
transition counts, the instruction total) is written to -o (default exact.cfg) as
JSON: the reference for 'fragprof hotcfg --compare'. It is slow by nature (about
5-10 µs per instruction on a VM); --max-instructions bounds it, after which the
program is detached and finishes on its own.

Stepping (--stepping): 'breakpoints' runs each straight-line block to a temporary
int3 planted at its successors (one trap per block, two for returns, indirect
branches and system calls); 'singlestep' uses PTRACE_SINGLESTEP per instruction;
'auto' (the default) uses breakpoints while the process has one thread and single
steps otherwise, since other threads could run into a breakpoint.

What is sampled: at each tick, every traced thread whose state is R (running or
runnable) in /proc is interrupted in turn, while the others keep running; a thread
stopped inside a restartable system call is skipped (it has no user PC to follow).
Threads are followed as they are created; forked children are followed while they
run the same program and detached when they exec another. Address-space
randomisation is turned off for started programs (unless --aslr) so that runs of a
program compare directly.

The program's stdin, stdout and stderr pass through; the report goes to stderr and
fragprof exits with the program's status. Ctrl-C detaches cleanly, keeps what was
collected and passes the interrupt on to the program.

--overhead SHARE (e.g. 5%) makes the interval adaptive: after each tick the mean
interval becomes the mean cost of a tick so far (the tracer's own wall time in it:
reading the threads' states, the bursts) divided by SHARE, so the sampler's direct
cost stays at SHARE of the run time whatever the machine's load; --interval is then
only the first gap, and later runs of --repeat start from the cost learned. The
report gives the sampler's time per burst and its share of the runs' wall time.
Starting a program under ptrace costs a few hundred microseconds more than starting
it plainly, which --overhead does not count and --measure-overhead does.

--measure-overhead runs the program --repeat times unsampled and --repeat times
sampled, alternating, in this invocation (stdin is read once and replayed; the
unsampled runs' output is discarded), and reports the ratio of median wall times.
With --repeat alone, the batches of all runs go to one file.

Examples:
  fragprof sample -- ./prog args < input
  fragprof sample --interval 1ms --burst 50 -o run.batches -- gzip -c big.txt > /dev/null
  fragprof sample --exact -o exact.cfg --max-instructions 50000000 -- ./prog args
  fragprof sample --measure-overhead --repeat 20 -- xz -9 -c data > /dev/null
  fragprof sample --overhead 5% -o run.batches -- ./prog args
  fragprof sample --pid 1234 -o server.batches     # Ctrl-C to stop`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
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
			if burst <= 0 || interval <= 0 || repeat <= 0 {
				return usagef("sample: --burst, --interval and --repeat must be positive")
			}
			if pid != 0 && (overhead || repeat > 1) {
				return usagef("sample: --measure-overhead and --repeat need a program to start")
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
			if overhead || repeat > 1 {
				b, err := io.ReadAll(e.stdin)
				if err != nil {
					return err
				}
				input = b
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			defer f.Close()
			w := hotcfg.NewWriter(f)
			w.Info("cmd", strings.Join(prog, " "))
			w.Info("interval", interval.String())
			w.Info("burst", fmt.Sprint(burst))
			var online *hotcfg.Bursts
			var code hotcfg.InsnTable
			if graphOut != "" {
				code = hotcfg.InsnTable{}
				online = hotcfg.NewBursts(code)
			}
			seq := 0
			sink := func(b hotcfg.Batch, c hotcfg.Code) {
				seq++
				b.Seq = seq
				w.Batch(b, c)
				if online != nil {
					for _, pc := range b.PCs {
						if in, ok := c.Insn(pc); ok {
							code[pc] = in
						}
					}
					online.AddBatch(b)
				}
			}
			opts := sample.Options{Interval: interval, Burst: burst, Stepping: st, Seed: seed, Overhead: share}
			if share > 0 {
				w.Info("overhead", overheadTarget)
			}
			var plain, traced []time.Duration
			var last *sample.Stats
			var total sample.Stats
			var maps hotcfg.Maps
			for i := 0; i < repeat; i++ {
				t := target
				if input != nil {
					t.Stdin = bytes.NewReader(input)
				}
				if overhead {
					pt := t
					pt.Stdout, pt.Stderr = io.Discard, io.Discard
					d, _, err := sample.Plain(pt)
					if err != nil {
						return err
					}
					plain = append(plain, d)
					if input != nil {
						t.Stdin = bytes.NewReader(input)
					}
				}
				opts.Seed = seed + uint64(i)
				if opts.Overhead > 0 && total.Ticks > 0 {
					// Each run starts from the cost learned in the runs before it.
					opts.Interval = max(time.Duration(float64(total.TickTime)/float64(total.Ticks)/opts.Overhead), time.Microsecond)
				}
				s, err := sample.Sample(t, opts, sink, nil)
				if err != nil {
					return err
				}
				traced = append(traced, s.Wall)
				total.Batches += s.Batches
				total.Sampled += s.Sampled
				total.Skipped += s.Skipped
				total.Ticks += s.Ticks
				total.TickTime += s.TickTime
				total.Wall += s.Wall
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
			}
			for _, m := range maps {
				w.Map(m)
			}
			w.Info("batches", fmt.Sprint(total.Batches))
			w.Info("sampled", fmt.Sprint(total.Sampled))
			w.Info("runs", fmt.Sprint(len(traced)))
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "fragprof sample: %d batches, %d PCs sampled (%d bursts skipped in system calls) in %d run(s), %v per run (median)\n",
				total.Batches, total.Sampled, total.Skipped, len(traced), sampleMedian(traced))
			fmt.Fprintf(e.stderr, "fragprof sample: share of instructions: run 'fragprof hotcfg %s --compare EXACT' (sampled_fraction) against 'sample --exact'\n", out)
			if total.Ticks > 0 {
				fmt.Fprintf(e.stderr, "fragprof sample: sampler time %v in %d ticks (%.0f µs per burst), %.2f%% of the sampled runs' wall time\n",
					total.TickTime.Round(time.Microsecond), total.Ticks, float64(total.TickTime.Microseconds())/float64(max(total.Batches, 1)),
					100*float64(total.TickTime)/float64(max(total.Wall, 1)))
			}
			if overhead {
				fmt.Fprintf(e.stderr, "fragprof sample: overhead: sampled %v / unsampled %v = %.3f (median of %d each)\n",
					sampleMedian(traced), sampleMedian(plain), float64(sampleMedian(traced))/float64(sampleMedian(plain)), len(plain))
			}
			for _, n := range last.Notes {
				fmt.Fprintf(e.stderr, "fragprof sample: %s\n", n)
			}
			if online != nil {
				g := online.Graph()
				g.Maps = maps
				if err := writeHotGraph(graphOut, g, nil); err != nil {
					return err
				}
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
	fl.DurationVar(&interval, "interval", 3*time.Millisecond, "mean time between bursts")
	fl.IntVar(&burst, "burst", 25, "PCs per burst")
	fl.StringVar(&overheadTarget, "overhead", "", "adapt the interval to hold the sampler's cost at this share of run time (e.g. 5%); --interval is then the first gap")
	fl.StringVarP(&out, "output", "o", "", "output file (default sample.batches, or exact.cfg with --exact)")
	fl.IntVar(&pid, "pid", 0, "attach to this running process instead of starting one")
	fl.BoolVar(&exact, "exact", false, "trace every instruction and write the exact CFG")
	fl.Uint64Var(&maxInsns, "max-instructions", 0, "with --exact: stop (detach) after this many instructions; 0: no bound")
	fl.StringVar(&stepping, "stepping", "auto", "auto, breakpoints or singlestep")
	fl.BoolVar(&overhead, "measure-overhead", false, "also run the program unsampled and report the wall-time ratio")
	fl.IntVar(&repeat, "repeat", 1, "run the program this many times (batches accumulate)")
	fl.BoolVar(&aslr, "aslr", false, "keep address-space randomisation")
	fl.Uint64Var(&seed, "seed", 1, "seed of the interval jitter")
	fl.StringVar(&graphOut, "graph", "", "also build the Bursts hot CFG online and write it (JSON) to this file")
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
