// This file renders the comparison of two profiles (profile.Compare).

package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// WriteDiff prints the program overlap, every function's overlap and call counts per
// run, and the top blocks whose share of all block executions moved most.
func WriteDiff(w io.Writer, c *profile.Comparison, nameA, nameB string, top int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "A = %s\nB = %s\n", nameA, nameB)
	fmt.Fprintf(tw, "program overlap: %.2f%% (share of call and edge weight both profiles agree on)\n\n", 100*c.Overlap)
	fmt.Fprintln(tw, "function\tfile\toverlap\tcalls/run A\tcalls/run B\t")
	for _, f := range c.Funcs {
		ov := fmt.Sprintf("%.2f%%", 100*f.Overlap)
		if f.Status != profile.InBoth {
			ov = f.Status.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4g\t%.4g\t\n", cfg.Demangle(f.Name), f.File, ov, f.CallsA, f.CallsB)
	}
	if len(c.Moves) > 0 {
		fmt.Fprintf(tw, "\nblocks that moved most (share of all block executions):\n")
		fmt.Fprintln(tw, "function\tblock\tline\tshare A\tshare B\tchange\tper run A\tper run B\t")
		for i, m := range c.Moves {
			if i == top || math.Abs(m.ShareA-m.ShareB) == 0 {
				break
			}
			fmt.Fprintf(tw, "%s\t%d %s\t%d\t%.2f%%\t%.2f%%\t%+.2f%%\t%.4g\t%.4g\t\n", cfg.Demangle(m.Func), m.Block.ID, m.Block.Label,
				m.Block.Start.Line, 100*m.ShareA, 100*m.ShareB, 100*(m.ShareB-m.ShareA), m.PerRunA, m.PerRunB)
		}
	}
	return tw.Flush()
}
