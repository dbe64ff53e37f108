// This file renders profiles as aligned text tables for people.

package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/textout"
	"github.com/fragprof/fragprof/profile"
)

// Sources gives the text of a source file's lines (index 0 is line 1), or nil when it
// cannot be read. The caller loads files; renderers never open them.
type Sources func(file string) []string

// WriteText writes p as one table per function in source order: each block with its
// label, source lines, count and the text of its first line; then the edges.
func WriteText(w io.Writer, p *profile.Profile, src Sources) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if p.HasCounts() {
		fmt.Fprintf(tw, "fragprof: %s, %s, %s\n", textout.Count(len(p.Program.Funcs), "function"),
			textout.Count(p.Counters, "counter"), textout.Count(p.Runs, "run"))
	} else {
		fmt.Fprintf(tw, "fragprof: %s\n", textout.Count(len(p.Program.Funcs), "function"))
	}
	for i, f := range p.Program.Funcs {
		var lines []string
		if src != nil {
			lines = src(f.File)
		}
		fmt.Fprintf(tw, "\n%s  (%s:%d)", f.DisplayName(), f.File, f.Line)
		if p.HasCounts() {
			fmt.Fprintf(tw, "  calls %d", p.Counts[i].Calls())
		}
		fmt.Fprintln(tw)
		if p.HasCounts() {
			fmt.Fprintln(tw, "  block\tlabel\tlines\tcount\tsource")
		} else {
			fmt.Fprintln(tw, "  block\tlabel\tfirst\tlast\tinstrs\tsource")
		}
		for _, b := range sourceOrder(f) {
			excerpt := ""
			if b.Start.Line > 0 && b.Start.Line <= len(lines) && b.Start.File == f.File {
				excerpt = strings.TrimSpace(lines[b.Start.Line-1])
				if len(excerpt) > 50 {
					excerpt = excerpt[:47] + "..."
				}
			}
			if p.HasCounts() {
				fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%s\n", b.ID, b.Label, compactLines(b), p.Counts[i].Blocks[b.ID], excerpt)
			} else {
				fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%d\t%s\n", b.ID, b.Label, b.Start, b.End, b.Instrs, excerpt)
			}
		}
		if len(f.Edges) > 0 {
			if p.HasCounts() {
				fmt.Fprintln(tw, "  edge\tfrom → to\tkind\tcount")
			} else {
				fmt.Fprintln(tw, "  edge\tfrom → to\tkind")
			}
			for _, e := range f.Edges {
				kind := e.Kind.String()
				if e.Kind == cfg.Case {
					kind = "case " + e.Case
				}
				if p.HasCounts() {
					kind += fmt.Sprintf("\t%d", p.Counts[i].Edges[e.ID])
				}
				fmt.Fprintf(tw, "  %d\t%d → %d\t%s\n", e.ID, e.From.ID, e.To.ID, kind)
			}
		}
	}
	return tw.Flush()
}

// sourceOrder returns f's blocks sorted by their first source line (blocks without a
// line keep their IR position after the entry).
func sourceOrder(f *cfg.Func) []*cfg.Block {
	out := append([]*cfg.Block(nil), f.Blocks...)
	key := func(b *cfg.Block) int {
		if b.Start.Line == 0 {
			return 1 << 30
		}
		return b.Start.Line
	}
	// Stable insertion sort keeps IR order among equal lines.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && key(out[j]) < key(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func compactLines(b *cfg.Block) string {
	s := linesText(b)
	s = strings.TrimPrefix(s, "lines ")
	s = strings.TrimPrefix(s, "line ")
	if s == "no line" {
		return "-"
	}
	return s
}
