// This file implements the plain in-process run of `fragprof sample`: one run,
// nothing that needs the bursts during it, so they are kept as the sampler wrote
// them (a record, sample.Session.Record) and decoded when the file is read.

package main

import (
	"fmt"
	"syscall"

	"github.com/fragprof/fragprof/internal/sample"
)

// runRecord runs s's program once under the in-process sampler, writes the record
// to out and prints the report of a sampled run, its whole cost included.
// children0 is the children's usage before the command.
func runRecord(e *env, intr *interrupts, s *sample.Session, out string, children0 syscall.Rusage) error {
	res, err := s.Record(out)
	if err != nil {
		return err
	}
	st := res.Last
	fmt.Fprintf(e.stderr, "fragprof sample: %d batches, %d PCs sampled (%d bursts skipped) in 1 run(s), %v per run (median)\n",
		st.Batches, st.Sampled, st.Skipped, st.Wall)
	fmt.Fprintf(e.stderr, "fragprof sample: share of instructions: run 'fragprof hotcfg %s --compare EXACT' (sampled_fraction) against 'sample --exact'\n", out)
	fmt.Fprintf(e.stderr, "fragprof sample: stepping: %s\n", st.Steps)
	costs, err := sampleCosts(e, intr, s.Start, children0)()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof sample: %s\n", res.WholeCost(costs))
	for _, n := range st.Notes {
		fmt.Fprintf(e.stderr, "fragprof sample: %s\n", n)
	}
	if st.ExitCode > 128 {
		intr.settle(syscall.Signal(st.ExitCode - 128))
	}
	if code := intr.code(); code != 0 {
		fmt.Fprintf(e.stderr, "fragprof sample: %s: the batches so far are kept\n", intr.mark())
		return exitError{code}
	}
	if st.Exited && st.ExitCode != 0 {
		return exitError{st.ExitCode}
	}
	return nil
}
