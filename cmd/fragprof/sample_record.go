// This file implements the plain in-process run of `fragprof sample`: one run,
// nothing that needs the bursts during it, so they are kept as the sampler wrote
// them (a record, sample.Record) and decoded when the file is read.

package main

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/internal/sample"
)

// recordRun is what a record run of sample needs from the command line.
type recordRun struct {
	target     sample.Target
	opts       sample.Options
	stackBytes int
	info       []sample.Info
	out        string
	children0  syscall.Rusage // the commands reaped before this one began
}

// runRecord runs the program once under the in-process sampler, writes the record
// to r.out and prints the report of a sampled run, its whole cost included.
func runRecord(e *env, intr *interrupts, r recordRun) error {
	s, err := sample.Record(r.target, r.opts, r.stackBytes, r.info, r.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof sample: %d batches, %d PCs sampled (%d bursts skipped) in 1 run(s), %v per run (median)\n",
		s.Batches, s.Sampled, s.Skipped, s.Wall)
	fmt.Fprintf(e.stderr, "fragprof sample: share of instructions: run 'fragprof hotcfg %s --compare EXACT' (sampled_fraction) against 'sample --exact'\n", r.out)
	fmt.Fprintf(e.stderr, "fragprof sample: stepping: %s\n", s.Steps)
	// A Ctrl-C waits for no calibration: what is not yet measured on this machine
	// is left out of an interrupted run's estimate (as in the other runs).
	var start, exit sample.StartCostResult
	if intr.caught() == 0 {
		if start, err = sample.CachedStartCost(startCostPairs, calibrating(e, "the in-process sampler's start (61 pairs of runs of true(1), a few seconds)")); err != nil {
			return err
		}
		if exit, err = exitCost(e); err != nil {
			fmt.Fprintf(e.stderr, "fragprof sample: %v: the cost below leaves fragprof's exit out\n", err)
		}
	}
	inProgram := s.SelfCost + s.SetupCost + start.Cost
	fmt.Fprintf(e.stderr, "fragprof sample: %s\n", wholeCost(*s, inProgram, s.CPU+rusageCPU(r.children0), 1, start, exit))
	for _, n := range s.Notes {
		fmt.Fprintf(e.stderr, "fragprof sample: %s\n", n)
	}
	if s.ExitCode > 128 {
		intr.settle(syscall.Signal(s.ExitCode - 128))
	}
	if code := intr.code(); code != 0 {
		fmt.Fprintf(e.stderr, "fragprof sample: %s: the batches so far are kept\n", intr.mark())
		return exitError{code}
	}
	if s.Exited && s.ExitCode != 0 {
		return exitError{s.ExitCode}
	}
	return nil
}

// recordable reports whether a sample invocation is a plain in-process run, which
// needs nothing of the bursts while it runs: one run of a started program, no
// online graph, no similarity to reach, no unsampled runs beside it.
func recordable(inProcess bool, pid, repeat int, overhead bool, graphOut string, until float64) bool {
	return inProcess && pid == 0 && repeat == 1 && !overhead && graphOut == "" && until == 0
}

// newRecordRun is the record run of sample with these flags: the in-process
// defaults (an interval of 1ms, --overhead 4%) where they are not given, and the
// info lines the batches file would open with.
func newRecordRun(t sample.Target, prog []string, interval time.Duration, burst int, st sample.Stepping, seed uint64,
	share float64, overheadTarget string, taskClock bool, stackBytes int, out string, children0 syscall.Rusage) recordRun {
	if interval == 0 {
		interval = time.Millisecond
	}
	if overheadTarget == "" {
		share, overheadTarget = defaultInProcessShare, fmt.Sprintf("%g%%", 100*defaultInProcessShare)
	}
	return recordRun{
		target:     t,
		opts:       sample.Options{Interval: interval, Burst: burst, Stepping: st, Seed: seed, Overhead: share, TaskClock: taskClock},
		stackBytes: stackBytes,
		info: []sample.Info{{Key: "cmd", Value: strings.Join(prog, " ")}, {Key: "interval", Value: interval.String()},
			{Key: "burst", Value: fmt.Sprint(burst)}, {Key: "overhead", Value: overheadTarget}, {Key: "sampler", Value: "inprocess"}},
		out:       out,
		children0: children0,
	}
}
