// This file selects parts of a profile.

package profile

import "github.com/fragprof/fragprof/cfg"

// Filter returns a profile with the functions of p for which keep is true, sharing
// their graphs, counts and rates with p.
func (p *Profile) Filter(keep func(*cfg.Func) bool) *Profile {
	out := &Profile{Program: &cfg.Program{}, Counters: p.Counters, Runs: p.Runs}
	if p.Rates != nil {
		out.Rates = &Rates{Instructions: p.Rates.Instructions, Sampled: p.Rates.Sampled, Edges: [][]EdgeRate{}}
	}
	for i, f := range p.Program.Funcs {
		if !keep(f) {
			continue
		}
		out.Program.Funcs = append(out.Program.Funcs, f)
		if p.Counts != nil {
			out.Counts = append(out.Counts, p.Counts[i])
		}
		if p.Rates != nil {
			out.Rates.Edges = append(out.Rates.Edges, p.Rates.Edges[i])
		}
	}
	if p.Counts != nil && out.Counts == nil {
		out.Counts = []cfg.Counts{}
	}
	return out
}
