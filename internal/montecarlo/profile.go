// This file converts between a run's Result and a profile file: the counts summed
// over the trials plus the statistics section (each block's exact count
// distribution), so that shards of a run merge exactly and are judged later.

package montecarlo

import (
	"fmt"
	"slices"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
	"github.com/fragprof/fragprof/profile"
)

// Profile returns the profile of the run: Runs = the trials folded; every block's
// count is the sum of its counts over those trials (exactly, from its
// distribution), every edge's likewise (EdgeTotals); the statistics section holds
// every block's distribution. Functions are in source order. counters is the
// number of counters of the instrumented binary (0: unknown).
func (r *Result) Profile(counters int) (*profile.Profile, error) {
	prog := &cfg.Program{Funcs: slices.Clone(r.Prog.Funcs)}
	prog.SortFuncs()
	pos := map[*cfg.Func]int{}
	for i, f := range r.Prog.Funcs {
		pos[f] = i
	}
	p := &profile.Profile{Program: prog, Runs: int(r.Trials), Counters: counters,
		Counts: make([]cfg.Counts, len(prog.Funcs)), Stats: make([][]profile.Dist, len(prog.Funcs))}
	for j, f := range prog.Funcs {
		i := pos[f]
		c := cfg.NewCounts(f)
		ds := make([]profile.Dist, len(f.Blocks))
		for b := range f.Blocks {
			ds[b] = *r.Blocks[i][b].Dist.Clone()
			hi, lo := ds[b].Sum()
			if hi != 0 {
				return nil, fmt.Errorf("function %s: block %d's total count overflows 64 bits", f.Name, b)
			}
			c.Blocks[b] = lo
		}
		if r.EdgeTotals == nil {
			return nil, fmt.Errorf("the run has no edge totals")
		}
		copy(c.Edges, r.EdgeTotals[i])
		p.Counts[j], p.Stats[j] = c, ds
	}
	if err := p.CheckStats(); err != nil {
		return nil, err
	}
	return p, nil
}

// FromProfile rebuilds a Result from a profile with statistics (one written by
// `fragprof freq --profile`, or a merge of such) and judges every block by rule, on
// all the trials the profile holds. What a profile does not store is absent: the
// convergence series (empty), the trial at which a block converged (0), failures,
// the elapsed time and why the runs stopped (Stopped is left for the caller).
// Every block must hold p.Runs trials.
func FromProfile(p *profile.Profile, rule stopping.Rule) (*Result, error) {
	if p.Stats == nil {
		return nil, fmt.Errorf("the profile has no statistics section (write it with 'fragprof freq --profile'; merging with a profile without statistics drops them)")
	}
	r := &Result{Prog: p.Program, Trials: uint64(p.Runs), Converged: true}
	for fi, f := range p.Program.Funcs {
		bs := make([]BlockEstimate, len(f.Blocks))
		for b := range bs {
			d := p.Stats[fi][b].Clone()
			if n := d.N(); n != r.Trials {
				return nil, fmt.Errorf("function %s holds %d trials but the profile has %d runs (was it merged with profiles of other programs?)", f.Name, n, r.Trials)
			}
			dec := rule.Decide(d.Summary())
			if dec.State == stats.Unconverged {
				r.Converged = false
			}
			bs[b] = BlockEstimate{Dist: d, Decision: dec, Series: []Point{}}
		}
		r.Blocks = append(r.Blocks, bs)
		em := make([]stats.Moments, len(f.Edges))
		var et []uint64
		if p.Counts != nil {
			et = slices.Clone(p.Counts[fi].Edges)
			for e := range em {
				em[e].N = r.Trials
				if r.Trials > 0 {
					em[e].Mean = float64(et[e]) / float64(r.Trials)
				}
			}
		}
		r.Edges = append(r.Edges, em)
		r.EdgeTotals = append(r.EdgeTotals, et)
	}
	return r, nil
}
