// Package profile holds fragprof's profile: a program's CFG with the execution counts
// of its blocks and edges summed over one or more runs. It is the one value every
// collector produces and every report consumes, like pprof's *profile.Profile.
//
// Profiles are stored in a binary, versioned, checksummed file (Parse, Write,
// WriteFile; the layout is in format.go and docs/profile-format.md) and combined by
// Merge.
//
// The package is public so that other tools can read what fragprof writes.
package profile

import (
	"fmt"

	"github.com/fragprof/fragprof/cfg"
)

// A Profile is a program's CFG and, optionally, counts.
type Profile struct {
	// Program is the functions' graphs. Their blocks' direct callees (Block.Calls)
	// are stored in the calls section (type 8; calls.go).
	Program *cfg.Program
	// Counts is parallel to Program.Funcs; nil for a profile of structure only
	// (what `fragprof cfg` prints).
	Counts []cfg.Counts
	// Counters is how many counters the instrumented binary carried; 0 when the
	// profile did not come from an instrumented binary (sampling, say).
	Counters int
	// Runs is the number of program runs summed into Counts.
	Runs int
	// Stats, when not nil, is parallel to Program.Funcs and holds, per block, the
	// exact distribution of its per-run count over the Runs (Monte Carlo trials of
	// `fragprof freq --profile`): the statistics section (type 6; stats.go). Merge
	// merges it exactly.
	Stats [][]Dist
	// Strata, when not nil, holds the statistics of a stratified run per stratum
	// (the strata section, type 10; strata.go): each stratum's distributions over
	// its trials, which together are the trials of Stats. Merge merges them when
	// every source has the same strata, and drops them otherwise.
	Strata []Stratum
	// Identity names the program (identity.go): the C files or binary it came from
	// and the binary's build-id. It is written in the identity section (type 7) when
	// not empty; Merge keeps what its sources agree on.
	Identity Identity
	// Rates, when not nil, holds the statistics of a profile built from sampled
	// program counters (`fragprof hotcfg --format profile`): every edge's
	// estimated rate and its standard error, in the rates section (type 9;
	// rates.go). Merge drops it.
	Rates *Rates
	// Extra holds the ancillary sections of a parsed file that this version of the
	// package does not know, so that Parse → Write keeps them. Merge drops them.
	// (A section of a type this package knows is never here: Parse reads it.)
	Extra []Section
}

// A Section is a raw section of a profile file.
type Section struct {
	Type  uint32
	Flags uint32
	Data  []byte
}

// HasCounts reports whether p carries counts.
func (p *Profile) HasCounts() bool { return p.Counts != nil }

// Check verifies every function's graph and, when p carries counts, their shape and
// flow conservation (cfg.Func.CheckFlow with the given strictness).
func (p *Profile) Check(flow cfg.Flow) error {
	if p.Counts != nil && len(p.Counts) != len(p.Program.Funcs) {
		return fmt.Errorf("profile: %d count sets for %d functions", len(p.Counts), len(p.Program.Funcs))
	}
	for i, f := range p.Program.Funcs {
		if err := f.Check(); err != nil {
			return err
		}
		if p.Counts != nil {
			if err := f.CheckFlow(p.Counts[i], flow); err != nil {
				return err
			}
		}
	}
	return nil
}
