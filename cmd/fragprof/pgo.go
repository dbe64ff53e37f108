// This file implements `fragprof pgo`.

package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/pgo"
)

func newPGOCmd(e *env) *cobra.Command {
	var bf buildFlags
	var prof, out string
	var verbose bool
	c := &cobra.Command{
		Use:   "pgo [flags] FILE.c... --profile PROFILE.fpp -o PROG",
		Short: "Compile a program optimised with a profile (profile-guided optimisation)",
		Long: `Pgo closes the loop of edge profiling: it compiles the C files again, writes the
counts of the profile into the LLVM IR, and compiles the result with -O2 (or --opt)
into PROG, a plain program without counters or runtime.

The counts go in as the metadata clang's own -fprofile-instr-use writes: every branch
and switch that ran gets !prof branch_weights (its edges' counts, scaled to 32 bits
as clang scales them), every function gets !prof function_entry_count, and the module
gets a ProfileSummary so that LLVM knows which counts are hot. LLVM's profile-guided
passes then use them: block placement lays the hot path out straight, the inliner
favours hot call sites, cold code moves out of the way.

Give the same build flags (-I, -D, --cflags) as the build that was profiled: the IR
must have the same control-flow graphs. Each function is matched with the profile
by name and source file and annotated only if its CFG checksum equals the one in
the profile; a function whose code changed since profiling ("stale") or that the
profile does not hold ("missing") is compiled without profile data and reported —
never annotated wrongly. A summary goes to stderr; -v lists every function.

Examples:
  fragprof count interp.c --profile train.fpp < train.bc
  fragprof pgo interp.c --profile train.fpp -o interp.opt
  ./interp.opt < real.bc
  fragprof merge a.fpp b.fpp -o all.fpp && fragprof pgo -D FAST prog.c util.c --profile all.fpp -o prog -v`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("pgo: name the C files")
			}
			if prof == "" {
				return usagef("pgo: name the profile with --profile FILE.fpp")
			}
			if out == "" {
				return usagef("pgo: name the program to write with -o PROG")
			}
			spec, err := bf.spec(args)
			if err != nil {
				return err
			}
			p, err := readProfile(e, prof)
			if err != nil {
				return err
			}
			tc, err := toolchain()
			if err != nil {
				return err
			}
			dir, cleanup, err := workDir(e)
			if err != nil {
				return err
			}
			defer cleanup()
			abs, err := filepath.Abs(out)
			if err != nil {
				return err
			}
			reports, err := pgo.Build(bg(), tc, spec, p, dir, abs, e.stderr)
			if errors.Is(err, pgo.ErrOtherProgram) {
				return fmt.Errorf("pgo: %s is a profile of another program (%s): it holds none of the functions of %s; nothing was written to %s. Profile these sources first: fragprof count %s --profile FILE.fpp",
					prof, p.Describe(), strings.Join(args, " "), out, strings.Join(args, " "))
			}
			if err != nil {
				return err
			}
			return writePGOReport(e, args, reports, prof, verbose)
		},
	}
	bf.add(c)
	c.Flags().StringVar(&prof, "profile", "", "the profile `FILE.fpp` to optimise with")
	c.Flags().StringVarP(&out, "output", "o", "", "write the optimised program to `PROG`")
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "list what happened to every function")
	return c
}

func writePGOReport(e *env, srcs []string, reports []*pgo.Report, prof string, verbose bool) error {
	var applied, never, missing, stale int
	tw := tabwriter.NewWriter(e.stderr, 0, 0, 2, ' ', 0)
	for i, r := range reports {
		applied += r.Count(pgo.Applied)
		never += r.Count(pgo.NeverRun)
		missing += r.Count(pgo.Missing)
		stale += r.Count(pgo.Stale)
		for _, f := range r.Funcs {
			switch {
			case f.Status == pgo.Stale || f.Status == pgo.Missing:
				fmt.Fprintf(tw, "fragprof: pgo: %s: function %s: %s, %s: compiled without profile\t\n", srcs[i], f.Name, f.Status, f.Why)
			case verbose:
				fmt.Fprintf(tw, "fragprof: pgo: %s: function %s: %s, %d calls, %d branches weighted\t\n", srcs[i], f.Name, f.Status, f.Calls, f.Branches)
			}
		}
	}
	tw.Flush()
	fmt.Fprintf(e.stderr, "fragprof: pgo: %d functions optimised with %s (%d of them never ran), %s\n",
		applied+never, prof, never, strings.Join(nonZero(map[string]int{"stale": stale, "missing": missing}), ", "))
	if applied+never == 0 {
		fmt.Fprintf(e.stderr, "fragprof: warning: pgo: the profile matched no function: was it made from these sources with the same flags?\n")
	}
	return nil
}

func nonZero(m map[string]int) []string {
	var out []string
	for _, k := range []string{"stale", "missing"} {
		if m[k] > 0 {
			out = append(out, fmt.Sprintf("%d %s", m[k], k))
		}
	}
	if len(out) == 0 {
		out = []string{"none stale or missing"}
	}
	return out
}
