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
	for h, dists := range r.StrataDists {
		st := profile.Stratum{Stats: make([][]profile.Dist, len(prog.Funcs))}
		if h < len(r.StrataSizes) && h < len(r.StrataNames) {
			st.Name, st.Size = r.StrataNames[h], r.StrataSizes[h]
		}
		for j, f := range prog.Funcs {
			st.Stats[j] = dists[pos[f]]
		}
		p.Strata = append(p.Strata, st)
	}
	if err := p.CheckStats(); err != nil {
		return nil, err
	}
	if err := p.CheckStrata(); err != nil {
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

// FromStratifiedProfile is FromProfile for a profile with strata (a stratified
// run's, profile.Stratum): each block the rule judges Unconverged, Converged or
// Exact is judged by sr on its strata instead, as the engine judges it
// (Config.StrataRule), and the result keeps the strata. A profile without
// strata, or a nil sr, is judged as FromProfile judges it.
func FromStratifiedProfile(p *profile.Profile, rule stopping.Rule, sr *stopping.Stratified) (*Result, error) {
	r, err := FromProfile(p, rule)
	if err != nil || p.Strata == nil || sr == nil {
		return r, err
	}
	r.Converged = true
	for h := range p.Strata {
		st := &p.Strata[h]
		r.StrataTrials = append(r.StrataTrials, st.Trials())
		r.StrataNames = append(r.StrataNames, st.Name)
		r.StrataSizes = append(r.StrataSizes, st.Size)
		r.StrataDists = append(r.StrataDists, st.Stats)
	}
	strata := make([]stopping.Stratum, len(p.Strata))
	for fi := range r.Blocks {
		for b := range r.Blocks[fi] {
			be := &r.Blocks[fi][b]
			if s := be.Decision.State; s == stats.Unconverged || s == stats.Converged || s == stats.Exact {
				for h := range p.Strata {
					strata[h] = stopping.Stratum{Size: p.Strata[h].Size, S: p.Strata[h].Stats[fi][b].Summary()}
				}
				be.Decision = sr.Decide(strata)
			}
			if be.Decision.State == stats.Unconverged {
				r.Converged = false
			}
		}
	}
	return r, nil
}
