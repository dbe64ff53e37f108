// This file renders profiles as Graphviz DOT. The exact output is not stable.

package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// WriteDOT draws every function of p as a cluster: blocks labelled with their label
// and source lines (and count), edges with their kind (and count); a block's calls
// of a function of p are dashed edges to the callee's entry block, labelled with
// the number of calls (cfg.CallEdge.Count) when p has counts.
func WriteDOT(w io.Writer, p *profile.Profile) error {
	var sb strings.Builder
	sb.WriteString("digraph fragprof {\n  node [shape=box fontname=\"monospace\" fontsize=10];\n  edge [fontname=\"monospace\" fontsize=9];\n")
	for i, f := range p.Program.Funcs {
		fmt.Fprintf(&sb, "  subgraph cluster_%d {\n    label=%s;\n", i, quote(fmt.Sprintf("%s (%s:%d)", f.DisplayName(), f.File, f.Line)))
		for _, b := range f.Blocks {
			label := b.Label + "\\n" + linesText(b)
			if p.HasCounts() {
				label += fmt.Sprintf("\\ncount %d", p.Counts[i].Blocks[b.ID])
			}
			fmt.Fprintf(&sb, "    f%d_b%d [label=\"%s\"];\n", i, b.ID, escapeDot(label))
		}
		for _, e := range f.Edges {
			label := e.Kind.String()
			if e.Kind == cfg.Case {
				label = "case " + e.Case
			}
			if p.HasCounts() {
				label += fmt.Sprintf(" ×%d", p.Counts[i].Edges[e.ID])
			}
			fmt.Fprintf(&sb, "    f%d_b%d -> f%d_b%d [label=%s];\n", i, e.From.ID, i, e.To.ID, quote(label))
		}
		sb.WriteString("  }\n")
	}
	writeDOTCalls(&sb, p)
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeDOTCalls draws the call edges of p between its clusters.
func writeDOTCalls(sb *strings.Builder, p *profile.Profile) {
	index := make(map[string]int, len(p.Program.Funcs))
	for i, f := range p.Program.Funcs {
		index[f.Name] = i
	}
	for i, f := range p.Program.Funcs {
		for _, ce := range f.CallEdges() {
			j, ok := index[ce.Callee]
			if !ok {
				continue
			}
			label := "call"
			if p.HasCounts() {
				label += fmt.Sprintf(" ×%d", ce.Count(p.Counts[i]))
			}
			fmt.Fprintf(sb, "  f%d_b%d -> f%d_b0 [style=dashed label=%s];\n", i, ce.Block.ID, j, quote(label))
		}
	}
}

// linesText prints a block's source lines compactly: "lines 3-5,9".
func linesText(b *cfg.Block) string {
	if len(b.Lines) == 0 {
		return "no line"
	}
	var parts []string
	for i := 0; i < len(b.Lines); {
		j := i
		for j+1 < len(b.Lines) && b.Lines[j+1] == b.Lines[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(b.Lines[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", b.Lines[i], b.Lines[j]))
		}
		i = j + 1
	}
	if len(b.Lines) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ",")
}

func quote(s string) string { return "\"" + escapeDot(s) + "\"" }

func escapeDot(s string) string {
	s = strings.ReplaceAll(s, `"`, `\"`)
	return strings.ReplaceAll(s, "\n", `\n`)
}
