// This file implements `fragprof show`.

package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/profile"
)

func newShowCmd(e *env) *cobra.Command {
	var fn, order, outFile string
	var source bool
	var top int
	c := &cobra.Command{
		Use:   "show FILE.fpp [--func NAME] [--source] [--order hot|source] [--top N]",
		Short: "Print a profile file: block frequencies, edge probabilities, call counts",
		Long: `Show prints what a profile file holds, with no need for the program or its binary
(the file carries the control-flow graph). FILE may also be a dump file that a program
built with 'fragprof cc' wrote for FRAGPROF_OUT: its counts are shown as the profile
'fragprof count --binary PROG --profile' writes for the same run.

By default every function is listed, hottest first: its call count (in total and
per run) and its share of all block executions, then its blocks — ID, IR label,
source lines, count, count per run, share of the function's block executions — and,
for each block that branches, the probability of each way out ("for.body 91.2% ·
for.end 8.8%"). --order source lists functions and blocks in source order instead;
--top N keeps the N hottest blocks of each function; --func NAME shows one function.

--source prints the source files annotated like gcov: every line with its count
("-" for a line without code, "#####" for code that never ran), and under each line
the blocks that start on it, with their counts and branch probabilities. The sources
are read from the paths recorded at compile time, relative to the current directory.

Examples:
  fragprof show all.fpp
  fragprof show all.fpp --func parse --order source
  fragprof show all.fpp --source | less
  fragprof show all.fpp --top 5 -o hot.txt
  FRAGPROF_OUT=c.fpd ./prog < input && fragprof show c.fpd`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("show: name one profile file (got %d arguments)", len(args))
			}
			var ord report.Order
			switch order {
			case "hot":
				ord = report.Hot
			case "source":
				ord = report.Source
			default:
				return usagef("show: --order %q: want hot or source", order)
			}
			p, err := readProfile(e, args[0])
			if err != nil {
				return err
			}
			if !p.HasCounts() {
				return fmt.Errorf("%s holds a CFG without counts: nothing to show (see 'fragprof cfg')", args[0])
			}
			if fn != "" {
				if p, err = onlyFunc(p, fn, args[0]); err != nil {
					return err
				}
			}
			render := func(w io.Writer) error {
				if source {
					return report.WriteSource(w, p, sourceFiles)
				}
				return report.WriteShow(w, p, report.ShowOptions{Order: ord, Top: top, Title: args[0]})
			}
			if outFile == "" {
				return render(e.stdout)
			}
			return writeReport(e, outFile, render)
		},
	}
	c.Flags().StringVar(&fn, "func", "", "show only the function `NAME`")
	c.Flags().BoolVar(&source, "source", false, "print the annotated source, like gcov")
	c.Flags().StringVar(&order, "order", "hot", "`ORDER` of functions and blocks: hot (most executed first) or source")
	c.Flags().IntVar(&top, "top", 0, "show only the `N` hottest blocks of each function (0: all)")
	c.Flags().StringVarP(&outFile, "output", "o", "", "write to `FILE` instead of stdout")
	return c
}

// onlyFunc keeps the function named name (linkage or demangled name), or says which
// names exist or which overloads name designates.
func onlyFunc(p *profile.Profile, name, file string) (*profile.Profile, error) {
	f, err := p.Program.Lookup(name)
	if err != nil {
		return nil, usagef("%s: %v", file, err)
	}
	return p.Filter(func(g *cfg.Func) bool { return g == f }), nil
}
