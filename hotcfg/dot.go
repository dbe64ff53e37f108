// This file implements the DOT rendering of a graph. The output is for people and
// its layout is not stable.

package hotcfg

import (
	"fmt"
	"io"
	"strings"

	"github.com/fragprof/fragprof/cfg"
)

// WriteDot writes g in Graphviz DOT, one cluster per function; edges that cross
// functions are drawn dashed between clusters. Edge labels are counts.
func (g *Graph) WriteDot(w io.Writer) error {
	funcs, cross := g.Split()
	var sb strings.Builder
	sb.WriteString("digraph hotcfg {\n  node [shape=box fontname=monospace];\n")
	node := func(b *Block) string { return fmt.Sprintf("b%x", b.Start) }
	for i, f := range funcs {
		fmt.Fprintf(&sb, "  subgraph cluster_%d {\n    label=%q;\n", i, cfg.Demangle(f.Name))
		for _, b := range f.Blocks {
			fmt.Fprintf(&sb, "    %s [label=\"%s\\n%g\"];\n", node(b), dotEscape(b.Label()), b.Count)
		}
		for _, e := range f.Edges {
			fmt.Fprintf(&sb, "    %s -> %s [label=\"%g\"];\n", node(e.From), node(e.To), e.Count)
		}
		sb.WriteString("  }\n")
	}
	for _, e := range cross {
		fmt.Fprintf(&sb, "  %s -> %s [style=dashed label=\"%s %g\"];\n", node(e.From), node(e.To), e.Kind, e.Count)
	}
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

func dotEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
}
