// This file implements `fragprof trace`.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/trace"
)

func newTraceCmd(e *env) *cobra.Command {
	var bf buildFlags
	var in inputFlags
	var binary, outDir, clock string
	var trials, first, maxEvents uint64
	var jobs, repeat, firstRep int
	var vary []string
	var keepGoing bool
	var autoLevel string
	var trialTimeout, stopAfter time.Duration
	var stopEvents uint64
	maxSize := byteSize(1 << 30)
	c := &cobra.Command{
		Use:   "trace [flags] FILE.c... -o DIR | trace --binary PROG [flags] -o DIR",
		Short: "Record checkpoint traces of a program on drawn inputs, for 'fragprof model'",
		Long: `Trace runs a program on inputs drawn from the given distributions and records, in
each trial, every checkpoint the program passes: its name, the time, and the values
of the variables marked there. One trace file per trial goes to DIR
(trial-000000.fpt, ...), with the trial's drawn inputs; 'fragprof model build DIR'
learns a transition-graph model from them that predicts run time and data for
inputs never run (docs/predict.md, docs/methods.md).

Checkpoints are marked in the source with fragprof.h:

  #include "fragprof.h"
  FP_POINT("end");                                 /* pass the checkpoint "end" */
  FP_POINT_VARS("inner", FP_I(i), FP_D(err));      /* ... recording i and err   */

FP_I records any signed integer type, FP_U unsigned ones (size_t, ...), FP_D double
or float, each under the text of its argument. Mark at least the start and the end
of the computation; mark the places whose passage decides the control flow, and the
variables that decide it. Outside fragprof the macros compile to nothing.

--auto-checkpoints marks programs that have no marks, where the marks cost little:
a checkpoint at the entry of each function not called from a loop (named after the
function, recording its integer and floating parameters as f.param), before its
returns ("f:ret", recording f.ret) and at the top of each outermost loop's header
("f:loop@LINE"). An inner loop is summarised by its outermost loop's iterations (the
model learns "one iteration costs c·n²" as well from one checkpoint per outer
iteration), and a function called from a loop or recursively is left unmarked, so
the events stay few and the traced program near the plain one's speed.
--auto-checkpoints=all marks every function and every loop header: one event per
iteration of every loop.

The runtime keeps events in a per-thread lock-free buffer that a background thread
drains, so a checkpoint costs its thread one timestamp (the TSC, calibrated against
CLOCK_MONOTONIC; --clock monotonic to use the system clock) and a few stores: about
10–40 ns. On a busy machine, where other programs take the processor away in the
middle of a trial, --clock thread measures each thread's own CPU time instead
(a system call, about 1 µs per checkpoint: for checkpoints outside hot loops). The
trace format is in docs/trace-format.md.

Inputs are given as for 'fragprof freq' (docs/inputs.md): --input defines their
distributions, --stdin, --arg and --file carry them into the program. Trial i's
inputs depend only on --seed and i. Run the program on the characteristic input
combinations the model will be asked about: a model interpolates well and
extrapolates with care.

Trials run one at a time by default, so that their times are not disturbed by each
other (--jobs runs several at once). A trial that crashes, times out or exits
non-zero is recorded with its status; 'model build' leaves it out.

--repeat R runs every trial R times, in R rounds (every trial once, then again),
one trace per run (trial-000007-r02.fpt: trial 7's third run). Each round runs in a
fresh fork server, a fresh exec of the program: the runs of one input are then
separate executions, each with its own address-space layout. On a shared machine
one run's time can be 5-20% off its input's typical time; 'model build' learns from
every run, takes the typical run of each input as its target, and judges its
held-out predictions against the median of each input's runs, reporting that
median's own scatter beside the error (docs/predict.md). --vary NAME draws the
input NAME (and the inputs that read it) anew in every repetition: a nuisance input
such as the seed of random data, over which the model predicts the expectation;
'model build' leaves it out of the model's inputs.

--stop-after D makes every trial a probe: it ends at its first checkpoint D after
its first (by the trace's clock), with its trace marked stopped; --stop-events N
ends it at its N-th checkpoint (model predict suggests both: a share of the run's
predicted time, and of its predicted checkpoints, which the model knows better). A probe of an
input too large to run whole tells 'model predict --probe' how fast that input's
first part ran; the model says which share of the whole that part is
(docs/predict.md, "Probing a large input"). 'model build' learns nothing from
probes.

Examples:
  fragprof trace examples/predict/brusselator.c --input 'K = choice(1,2,4,8,16,32,64)' \
      --stdin '{K}\n' --trials 40 -o traces/
  fragprof trace examples/predict/matmul.c --input 'n = uniform_int(20, 200)' \
      --stdin '{n}\n' --auto-checkpoints -o mm-traces/
  fragprof trace --binary ./solver --inputs solver.toml --trials 100 -o solver-traces/
  fragprof trace --binary ./gemm --input 'n = 2000' --stdin '{n}\n' --trials 1 \
      --stop-after 200ms -o probe/        # then: model predict M --set n=2000 --probe probe/`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := trace.CheckSources(binary, args, autoLevel, outDir); err != nil {
				return usagef("trace: %v", err)
			}
			auto := autoLevel != ""
			model, err := in.model(c)
			if err != nil {
				return err
			}
			col := &trace.Collector{
				Inputs: model, Seed: in.seed, Timeout: trialTimeout, Auto: auto, Clock: clock, MaxEvents: maxEvents,
				Repeat: repeat, Vary: vary, FirstRep: firstRep, StopAfter: stopAfter, StopEvents: stopEvents,
			}
			if err := col.Check(trials); err != nil {
				return usagef("trace: %v", err)
			}
			if len(vary) > 0 && repeat < 2 && !c.Flags().Changed("first-rep") {
				return usagef("trace: --vary needs --repeat of at least 2 (it draws %s anew in each repetition)", strings.Join(vary, ", "))
			}
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return fmt.Errorf("trace: -o %s: %v", outDir, err)
			}
			dir, cleanup, err := workDir(e)
			if err != nil {
				return err
			}
			defer cleanup()
			intr := catchInterrupts()
			defer intr.stop()
			bin, program, err := traceBinary(e, intr, &bf, args, binary, autoLevel, dir)
			if err != nil {
				return err
			}
			col.Binary, col.Program, col.Dir = bin, program, dir
			sum := trace.Summary{Reps: repeat}
			err = col.Run(intr.ctx, first, trials, jobs, func(r trace.Result) error {
				return sum.Take(e.stderr, "fragprof trace: ", outDir, r, keepGoing, int64(trials)*int64(repeat), int64(maxSize))
			})
			sum.Write(e.stderr, "fragprof trace: ", outDir)
			if code := intr.code(); code != 0 {
				// The program had the Ctrl-C too: its end is no failure of fragprof's.
				fmt.Fprintf(e.stderr, "fragprof trace: %s: the traces so far are kept\n", intr.mark())
				return exitError{code}
			}
			if err != nil {
				return err
			}
			return sum.NoCheckpoint()
		},
	}
	bf.add(c)
	in.add(c)
	fs := c.Flags()
	fs.StringVar(&binary, "binary", "", "trace `PROG`, a program built by 'fragprof cc', instead of building C files")
	fs.StringVarP(&outDir, "output", "o", "", "write the trace files to `DIR` (created if needed)")
	markOutput(c, outputDir, "output")
	fs.Uint64Var(&trials, "trials", 40, "number of trials (traces)")
	fs.Uint64Var(&first, "first", 0, "number of the first trial: with the same --seed, trials first… are the ones another run would draw")
	fs.IntVar(&repeat, "repeat", 1, "runs of every trial (in rounds): model build compares its predictions with the median of each input's runs")
	fs.IntVar(&firstRep, "first-rep", 0, "number of the first repetition round: --repeat 1 --first-rep 2 runs the third round only, as a longer --repeat would (to interleave the rounds of several trace runs in time)")
	fs.StringSliceVar(&vary, "vary", nil, "input `NAME` drawn anew in every repetition (a nuisance input, such as random data's seed; repeatable)")
	fs.IntVar(&jobs, "jobs", 1, "trials run at once (more than 1 disturbs the times)")
	fs.StringVar(&autoLevel, "auto-checkpoints", "", "insert checkpoints: `outer` (the flag alone: outermost loops, functions not called from loops) or all (every function and loop header)")
	fs.Lookup("auto-checkpoints").NoOptDefVal = "outer"
	fs.StringVar(&clock, "clock", "tsc", "timestamp source: tsc (fast, calibrated), monotonic (clock_gettime) or thread (the thread's CPU time: immune to preemption on a busy machine, ~1 µs a checkpoint)")
	fs.Uint64Var(&maxEvents, "max-events", 0, "events recorded per trial at most (0: the runtime's 16M); later ones are dropped and the trace marked truncated")
	fs.DurationVar(&trialTimeout, "trial-timeout", time.Minute, "a trial running longer is killed (its trace is kept, with its status)")
	fs.DurationVar(&stopAfter, "stop-after", 0, "make each trial a probe: end it at its first checkpoint `D` after its first, its trace marked stopped (for model predict --probe; 0: run to the end)")
	fs.Uint64Var(&stopEvents, "stop-events", 0, "make each trial a probe: end it at its `N`-th checkpoint, its trace marked stopped (for model predict --probe; 0: run to the end)")
	fs.BoolVar(&keepGoing, "keep-going", false, "go on when a trial cannot be run at all")
	fs.Var(&maxSize, "max-size", "the trace files of this run may take at most `SIZE` in all (e.g. 500M, 4G; 0: no limit): a warning when the first trials project past it, an error (the traces written kept) when it is reached")
	c.AddCommand(newTraceShowCmd(e))
	return c
}

// traceBinary returns the program to trace and how its traces name it: the given
// --binary, or the C files args built with checkpoints (and no counters) into dir.
func traceBinary(e *env, intr *interrupts, bf *buildFlags, args []string, binary, autoLevel, dir string) (bin, program string, err error) {
	if binary != "" {
		if bin, err = filepath.Abs(binary); err != nil {
			return "", "", err
		}
		if _, err := os.Stat(bin); err != nil {
			return "", "", usagef("trace: --binary: %v", err)
		}
		return bin, binary, nil
	}
	spec, err := bf.spec(args)
	if err != nil {
		return "", "", err
	}
	// Checkpoints only: the counters' increments would slow the traced program
	// (gemm's inner loop by ~15%) below the plain one.
	spec.Instr.NoCounters = true
	switch autoLevel {
	case "all":
		spec.Edits = append(spec.Edits, build.Edit(instrument.AutoCheckpointsAll))
	case "outer":
		spec.Edits = append(spec.Edits, build.Edit(instrument.AutoCheckpoints))
	}
	tc, err := toolchain()
	if err != nil {
		return "", "", intr.failed(e, "trace", "finding clang", err)
	}
	bin = filepath.Join(dir, "prog")
	if _, err := tc.Build(intr.ctx, e.stderr, spec, dir, bin); err != nil {
		return "", "", intr.failed(e, "trace", "building the program", err)
	}
	return bin, strings.Join(args, " "), nil
}
