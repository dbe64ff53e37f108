// This file prints a profile in a stable text form, for golden files and debugging.

package profile

import (
	"fmt"
	"strings"
)

// String dumps p: the summary, then every function's graph (cfg.Func.String) with
// its CFG checksum and, when present, its block and edge counts.
func (p *Profile) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "profile: %d functions, runs=%d counters=%d counts=%v\n",
		len(p.Program.Funcs), p.Runs, p.Counters, p.HasCounts())
	if p.Rates != nil {
		fmt.Fprintf(&sb, "rates: instructions=%d sampled=%d\n", p.Rates.Instructions, p.Rates.Sampled)
	}
	for i, f := range p.Program.Funcs {
		fmt.Fprintf(&sb, "checksum %016x\n", f.Checksum())
		sb.WriteString(f.String())
		if p.HasCounts() {
			fmt.Fprintf(&sb, "  blocks %v\n  edges %v\n", p.Counts[i].Blocks, p.Counts[i].Edges)
		}
		if p.Stats != nil {
			for b, d := range p.Stats[i] {
				fmt.Fprintf(&sb, "  stats b%d: %s\n", b, d.String())
			}
		}
		if p.Rates != nil {
			for k, r := range p.Rates.Edges[i] {
				if r.Estimated || r.Inferred {
					fmt.Fprintf(&sb, "  rate e%d: %g ± %g inferred=%v\n", k, r.Rate, r.StdErr, r.Inferred)
				}
			}
		}
	}
	for _, s := range p.Extra {
		fmt.Fprintf(&sb, "extra section type %d flags %d: %d bytes\n", s.Type, s.Flags, len(s.Data))
	}
	return sb.String()
}
