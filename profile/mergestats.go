// This file merges the statistics section: the exact count distributions of
// Monte Carlo shards.

package profile

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/fragprof/fragprof/internal/stats"
)

// ErrWeightedStats is returned by MergeWith when weights other than 1 are given for
// sources that carry statistics: a weighted merge of count distributions has no
// meaning (it would claim trials that were never run).
var ErrWeightedStats = errors.New("profile: weights cannot be applied to profiles with statistics (a distribution of per-trial counts cannot be scaled); merge them without weights")

// MergeDists returns the distribution of the union of the trials of ds, exactly as
// if every trial had been recorded in one distribution: the result does not depend
// on the order or grouping of ds. Every Dist must be valid ([Dist.Validate]); the
// trials must total less than 2⁶⁴.
func MergeDists(ds ...Dist) (Dist, error) {
	var total uint64
	acc := &stats.CountDist{}
	for i := range ds {
		if err := ds[i].Validate(); err != nil {
			return Dist{}, err
		}
		var c uint64
		total, c = bits.Add64(total, ds[i].N(), 0)
		if c != 0 {
			return Dist{}, errors.New("profile: merged distribution has 2⁶⁴ or more trials")
		}
		acc.Merge(&ds[i])
	}
	return *acc, nil
}

// mergeStats merges the statistics of srcs into out (whose functions are final and
// sorted), when every source has statistics. index maps out's functions.
func mergeStats(out *Profile, srcs []*Profile, index map[funcKey]int) error {
	parts := make([][][]Dist, len(out.Program.Funcs)) // [func][block][source]
	for j, f := range out.Program.Funcs {
		parts[j] = make([][]Dist, len(f.Blocks))
	}
	for _, p := range srcs {
		for fi, f := range p.Program.Funcs {
			j, ok := index[funcKey{f.Name, f.File}]
			if !ok {
				continue
			}
			for b := range p.Stats[fi] {
				parts[j][b] = append(parts[j][b], p.Stats[fi][b])
			}
		}
	}
	out.Stats = make([][]Dist, len(out.Program.Funcs))
	for j, f := range out.Program.Funcs {
		out.Stats[j] = make([]Dist, len(f.Blocks))
		for b := range f.Blocks {
			d, err := MergeDists(parts[j][b]...)
			if err != nil {
				return fmt.Errorf("profile: function %s, block %d: %v", f.Name, b, err)
			}
			out.Stats[j][b] = d
		}
	}
	return nil
}
