// This file implements `fragprof diff`.

package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/profile"
)

func newDiffCmd(e *env) *cobra.Command {
	var top int
	var outFile string
	var force bool
	c := &cobra.Command{
		Use:   "diff A.fpp B.fpp [--top N]",
		Short: "Compare two profiles: overlap per function and the blocks that moved most",
		Long: `Diff compares two profile files of the same program — two inputs, two versions of
the input set, a test run against production — the way llvm-profdata overlap and
gcov-tool overlap do.

The program overlap is the share of weight both profiles agree on: every function's
call count and edge counts are divided by the profile's total, and the overlap is
the sum over all of them of the smaller of the two shares. 100% means the two
profiles distribute execution identically (whatever their numbers of runs); 0%
means they share nothing. Each function's own overlap is computed the same way
within the function: it says whether its branches went the same ways. Functions
found in one profile only, or whose control-flow graph differs, are listed as such.
Profiles of different programs (their program hashes differ and they share no
function) are not compared: diff says so, names both programs and exits with
status 1, unless --force.

Then the N blocks whose share of all block executions changed most, with their
counts per run in each profile.

Examples:
  fragprof diff small-inputs.fpp large-inputs.fpp
  fragprof diff before.fpp after.fpp --top 20`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("diff: name two profile files (got %d arguments)", len(args))
			}
			var ps [2]*profile.Profile
			for i, a := range args {
				p, err := readProfile(e, a)
				if err != nil {
					return err
				}
				if !p.HasCounts() {
					return fmt.Errorf("%s holds a CFG without counts: nothing to compare", a)
				}
				ps[i] = p
			}
			if profile.DifferentPrograms(ps[0], ps[1]) && !force {
				return fmt.Errorf("diff: %s and %s are profiles of different programs: %s is of %s, %s of %s; they share no function (--force compares them anyway)",
					args[0], args[1], args[0], ps[0].Describe(), args[1], ps[1].Describe())
			}
			cmp := profile.Compare(ps[0], ps[1])
			render := func(w io.Writer) error { return report.WriteDiff(w, cmp, args[0], args[1], top) }
			if outFile == "" {
				return render(e.stdout)
			}
			return writeReport(e, outFile, render)
		},
	}
	c.Flags().IntVar(&top, "top", 10, "list the `N` blocks that moved most")
	c.Flags().StringVarP(&outFile, "output", "o", "", "write to `FILE` instead of stdout")
	c.Flags().BoolVar(&force, "force", false, "compare profiles of different programs (that share no function) instead of refusing")
	return c
}
