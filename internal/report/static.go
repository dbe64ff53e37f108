// This file renders static estimates (cfg.EstimateStatic) for `fragprof cfg --static`.

package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/fragprof/fragprof/cfg"
)

// WriteStatic prints, per function, every block's estimated frequency per call and
// loop depth, then every edge's estimated probability with the heuristics that
// decided its branch.
func WriteStatic(w io.Writer, p *cfg.Program, est []*cfg.Static) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "fragprof: static estimates (Ball–Larus heuristics, Dempster–Shafer, Wu–Larus propagation) for %d functions\n", len(p.Funcs))
	for i, f := range p.Funcs {
		s := est[i]
		fmt.Fprintf(tw, "\n%s  (%s:%d)  %d loops\n", f.DisplayName(), f.File, f.Line, len(s.Loops.Loops))
		fmt.Fprintln(tw, "  block\tlabel\tlines\tfreq/call\tloop depth\ttraits")
		for _, b := range f.Blocks {
			depth := 0
			if l := s.Loops.Innermost[b.ID]; l != nil {
				depth = l.Depth
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%.4g\t%d\t%s\n", b.ID, b.Label, compactLines(b), s.Freq[b.ID], depth, b.Traits)
		}
		if len(f.Edges) == 0 {
			continue
		}
		fmt.Fprintln(tw, "  edge\tfrom → to\tkind\tprob\tfreq/call\theuristics")
		for _, e := range f.Edges {
			kind := e.Kind.String()
			if e.Kind == cfg.Case {
				kind = "case " + e.Case
			}
			if s.Loops.Back[e.ID] {
				kind += ", back"
			}
			var hs []string
			if len(e.From.Succs) > 1 {
				for _, h := range s.Used[e.From.ID] {
					hs = append(hs, h.String())
				}
				if len(hs) == 0 {
					hs = []string{"none: even odds"}
				}
			}
			fmt.Fprintf(tw, "  %d\t%s → %s\t%s\t%.4g\t%.4g\t%s\n", e.ID, e.From.Label, e.To.Label, kind, s.Prob[e.ID], s.EdgeFreq[e.ID], strings.Join(hs, ", "))
		}
	}
	return tw.Flush()
}
