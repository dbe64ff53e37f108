// This file implements `fragprof merge`.

package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/profile"
)

func newMergeCmd(e *env) *cobra.Command {
	var out, weights string
	var skip, force bool
	c := &cobra.Command{
		Use:   "merge FILE.fpp... -o OUT.fpp [--weights W1,W2,...] [--skip-mismatched]",
		Short: "Sum profile files from many runs or machines into one",
		Long: `Merge reads profile files written by 'fragprof count --profile' (or by merge
itself) and writes one profile holding their sums: every block and edge count, and
the number of runs. It reads as well the dump files that programs built with
'fragprof cc' write for FRAGPROF_OUT, each as the profile of one run that 'fragprof
count --binary PROG --profile' writes for that run (the sum of its forked and
exec'd processes), except that it names no binary or build-id: a dump does not
record them. Without %p in FRAGPROF_OUT each run replaces the last one's dump: give
FRAGPROF_OUT=runs/%p.fpd to keep every run's, then merge runs/*.fpd. Profiles from different machines or shards merge the same way;
merging is commutative and associative, so the order and the grouping of the inputs
never change the result.

Before summing, merge checks that the inputs describe the same program. Every
profile carries its program's identity (the files it was built from, the binary's
build-id, and a hash of all its functions' control-flow graphs): profiles of
different programs — their hashes differ and they share no function — are refused,
naming both, unless --force. Within one program, a function
(matched by name and source file) whose control-flow graph differs between two
inputs — the program was edited or built differently between the runs — is an error
that names the function and both files. --skip-mismatched drops such functions from
the result instead, with a warning for each. A damaged or truncated file is detected
by its checksum and named.

--weights multiplies each input's counts and runs by a positive integer, one weight
per input in order (like llvm-profdata merge -weighted-input), to make one input
count more than another. The output is written atomically (a temporary file renamed
into place), so it may be one of the inputs.

Functions present in some inputs only are kept with the counts they have. The
"counters" figure is kept when all inputs agree and becomes 0 (unknown) otherwise.

Examples:
  fragprof count prog.c --profile run1.fpp < input1
  fragprof count prog.c --profile run2.fpp < input2
  fragprof merge run1.fpp run2.fpp -o all.fpp
  fragprof merge all.fpp nightly.fpp --weights 1,3 -o all.fpp
  fragprof merge shard-*.fpp -o total.fpp --skip-mismatched
  FRAGPROF_OUT=runs/%p.fpd make test && fragprof merge runs/*.fpd -o all.fpp`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge: name the profile files to merge")
			}
			if out == "" {
				return usagef("merge: name the output with -o FILE")
			}
			opt := profile.MergeOptions{SkipMismatched: skip, Force: force}
			if weights != "" {
				for _, w := range strings.Split(weights, ",") {
					v, err := strconv.ParseUint(strings.TrimSpace(w), 10, 64)
					if err != nil || v == 0 {
						return usagef("merge: --weights: %q is not a positive integer", w)
					}
					opt.Weights = append(opt.Weights, v)
				}
				if len(opt.Weights) != len(args) {
					return usagef("merge: --weights has %d weights for %d files", len(opt.Weights), len(args))
				}
			}
			srcs := make([]*profile.Profile, len(args))
			for i, a := range args {
				p, err := readProfile(e, a)
				if err != nil {
					return err
				}
				srcs[i] = p
			}
			m, skipped, err := profile.MergeWith(srcs, opt)
			var me *profile.MismatchError
			var pm *profile.ProgramMismatchError
			if errors.As(err, &pm) {
				return fmt.Errorf("merge: %s and %s are profiles of different programs: %s is of %s, %s of %s; they share no function (--force merges them anyway)",
					args[pm.A], args[pm.B], args[pm.A], pm.DescA, args[pm.B], pm.DescB)
			}
			var im *profile.InputsMismatchError
			if errors.As(err, &im) {
				why := "the corpus or records changed between the runs"
				if seedsOnly(srcs[im.A].Identity.Inputs, srcs[im.B].Identity.Inputs) {
					why = "the same population drawn under different seeds: their members overlap (shards of one run share its seed)"
				}
				return fmt.Errorf("merge: %s and %s are runs on different inputs: %s drew from %s, %s from %s; %s (--force merges them anyway)",
					args[im.A], args[im.B], args[im.A], im.InputsA, args[im.B], im.InputsB, why)
			}
			if errors.As(err, &me) {
				return fmt.Errorf("merge: function %s (%s) differs between %s and %s: the program changed between the runs (use --skip-mismatched to drop it)",
					me.Func, me.File, args[me.A], args[me.B])
			}
			if err != nil {
				return fmt.Errorf("merge: %v", err)
			}
			for _, s := range skipped {
				fmt.Fprintf(e.stderr, "fragprof: warning: merge: dropped function %s (%s): it differs between %s and %s\n",
					s.Func, s.File, args[s.A], args[s.B])
			}
			if err := m.WriteFile(out); err != nil {
				return fmt.Errorf("merge: %v", err)
			}
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "write the merged profile to `FILE`")
	markOutput(c, outputReplacing, "output")
	c.Flags().StringVar(&weights, "weights", "", "multiply the inputs' counts by `W1,W2,...` (one positive integer per input)")
	c.Flags().BoolVar(&force, "force", false, "merge profiles of different programs (that share no function) instead of refusing")
	c.Flags().BoolVar(&skip, "skip-mismatched", false, "drop functions whose CFG differs between inputs, with a warning, instead of failing")
	return c
}

// seedsOnly reports whether two profiles' Identity.Inputs differ only in the seed
// of their finite population (finiteLine).
func seedsOnly(a, b string) bool {
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "finite population: ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	return a != b && strip(a) == strip(b)
}
