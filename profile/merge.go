// This file implements Merge: many profiles (many runs, many machines) into one.

package profile

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/fragprof/fragprof/cfg"
)

// MergeOptions control MergeWith.
type MergeOptions struct {
	// Weights multiply each source's counts and runs (llvm-profdata's
	// -weighted-input); nil means 1 for every source. A weight must be positive.
	Weights []uint64
	// SkipMismatched drops a function whose CFG checksum differs between sources,
	// from every source, instead of failing; MergeWith reports each one it dropped.
	SkipMismatched bool
	// Force merges profiles of different programs (DifferentPrograms), which is
	// otherwise a *ProgramMismatchError, and of runs on different populations
	// (Identity.Inputs), otherwise an *InputsMismatchError.
	Force bool
}

// A MismatchError is a function that two sources describe with different CFGs: the
// program changed between the runs. A and B index the sources.
type MismatchError struct {
	Func, File string
	A, B       int
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("function %s (%s) has a different control-flow graph in source %d than in source %d: the program changed between the runs",
		e.Func, e.File, e.A, e.B)
}

// Merge sums profiles of the same program. See MergeWith.
func Merge(srcs []*Profile) (*Profile, error) {
	p, _, err := MergeWith(srcs, MergeOptions{})
	return p, err
}

type funcKey struct{ name, file string }

// MergeWith sums profiles of the same program into a new profile and leaves the
// sources unchanged. Functions are matched by name and source file; a function
// present in some sources only is kept with the counts of those. Compatibility is
// checked before anything is summed: profiles of different programs (they share no
// function and their hashes differ: DifferentPrograms) are a *ProgramMismatchError
// unless opt.Force; a function whose CFG checksum differs between
// two sources is a *MismatchError, unless opt.SkipMismatched drops it (the dropped
// functions are returned). The header fields combine as follows:
//
//   - Counts: Σ weight·counts, per block and per edge; an overflow of 64 bits is an
//     error naming the function.
//   - Runs: Σ weight·runs.
//   - Counters: kept when every source agrees, else 0 (unknown).
//   - Stats (the statistics section): when every source has statistics, each
//     block's count distribution is the exact merge of the sources' (MergeDists:
//     the same bits whatever the order or grouping); when some source has none, the
//     result has none (a distribution over part of the runs would not describe the
//     summed counts). Weights other than 1 with statistics are ErrWeightedStats.
//   - Strata (the strata section): when every source has statistics and the same
//     strata (names and sizes), each stratum's distributions merged as the
//     statistics are; otherwise dropped.
//   - Identity: the name and build-id the sources agree on; differing names
//     joined with " + ", differing build-ids unknown (mergeIdentity).
//   - Rates (the rates section): dropped. They are estimates from one sampled
//     run, not sums, and the counts they were made with change in the merge.
//   - Extra sections: dropped (their meaning is unknown, so no sum is safe).
//
// The CFG of a function (labels, positions and calls, which the checksum ignores)
// comes from the first source that has it. The result has counts if any source has; the
// functions are in source order (cfg.Program.SortFuncs). For compatible sources
// merging is commutative and associative: Merge(a, Merge(b, c)) = Merge(Merge(a, b), c).
func MergeWith(srcs []*Profile, opt MergeOptions) (*Profile, []*MismatchError, error) {
	if len(srcs) == 0 {
		return nil, nil, errors.New("profile: nothing to merge")
	}
	if opt.Weights != nil && len(opt.Weights) != len(srcs) {
		return nil, nil, fmt.Errorf("profile: %d weights for %d profiles", len(opt.Weights), len(srcs))
	}
	weight := func(i int) uint64 {
		if opt.Weights == nil {
			return 1
		}
		return opt.Weights[i]
	}
	allStats := true
	for i := range srcs {
		if srcs[i] != nil && srcs[i].Stats != nil && weight(i) != 1 {
			return nil, nil, ErrWeightedStats
		}
		allStats = allStats && srcs[i] != nil && srcs[i].Stats != nil
		if weight(i) == 0 {
			return nil, nil, fmt.Errorf("profile: weight of source %d is 0", i)
		}
		if srcs[i] == nil || srcs[i].Program == nil {
			return nil, nil, fmt.Errorf("profile: source %d is empty", i)
		}
	}
	// Pass 1: compatibility: the same program, then the same CFG per function.
	if !opt.Force {
		for i := 1; i < len(srcs); i++ {
			if DifferentPrograms(srcs[0], srcs[i]) {
				return nil, nil, &ProgramMismatchError{A: 0, B: i, DescA: srcs[0].Describe(), DescB: srcs[i].Describe()}
			}
			if a, b := srcs[0].Identity.Inputs, srcs[i].Identity.Inputs; a != b {
				return nil, nil, &InputsMismatchError{A: 0, B: i, InputsA: describeInputs(a), InputsB: describeInputs(b)}
			}
		}
	}
	type seen struct {
		src int
		f   *cfg.Func
		sum uint64
	}
	first := map[funcKey]seen{}
	var order []funcKey
	var mismatches []*MismatchError
	bad := map[funcKey]bool{}
	for i, p := range srcs {
		for _, f := range p.Program.Funcs {
			k := funcKey{f.Name, f.File}
			s, ok := first[k]
			if !ok {
				first[k] = seen{i, f, f.Checksum()}
				order = append(order, k)
				continue
			}
			if s.src == i {
				return nil, nil, fmt.Errorf("profile: source %d has function %s (%s) twice", i, f.Name, f.File)
			}
			if f.Checksum() != s.sum && !bad[k] {
				m := &MismatchError{Func: f.Name, File: f.File, A: s.src, B: i}
				if !opt.SkipMismatched {
					return nil, nil, m
				}
				bad[k] = true
				mismatches = append(mismatches, m)
			}
		}
	}
	// Pass 2: sums.
	out := &Profile{Program: &cfg.Program{}}
	counters := srcs[0].Counters
	hasCounts := false
	for i, p := range srcs {
		if p.Counters != counters {
			counters = 0
		}
		r, over := mulAdd(uint64(out.Runs), uint64(p.Runs), weight(i))
		if over || r > 1<<62 {
			return nil, nil, errors.New("profile: the number of runs overflows")
		}
		out.Runs = int(r)
		hasCounts = hasCounts || p.Counts != nil
	}
	out.Counters = counters
	out.Identity = mergeIdentity(srcs)
	index := map[funcKey]int{}
	for _, k := range order {
		if bad[k] {
			continue
		}
		index[k] = len(out.Program.Funcs)
		out.Program.Funcs = append(out.Program.Funcs, first[k].f)
	}
	if hasCounts {
		out.Counts = make([]cfg.Counts, len(out.Program.Funcs))
		for j, f := range out.Program.Funcs {
			out.Counts[j] = cfg.NewCounts(f)
		}
		for i, p := range srcs {
			if p.Counts == nil {
				continue
			}
			w := weight(i)
			for fi, f := range p.Program.Funcs {
				j, ok := index[funcKey{f.Name, f.File}]
				if !ok {
					continue
				}
				dst, src := out.Counts[j], p.Counts[fi]
				for b := range dst.Blocks {
					v, over := mulAdd(dst.Blocks[b], src.Blocks[b], w)
					if over {
						return nil, nil, fmt.Errorf("profile: function %s: block count overflows 64 bits", f.Name)
					}
					dst.Blocks[b] = v
				}
				for e := range dst.Edges {
					v, over := mulAdd(dst.Edges[e], src.Edges[e], w)
					if over {
						return nil, nil, fmt.Errorf("profile: function %s: edge count overflows 64 bits", f.Name)
					}
					dst.Edges[e] = v
				}
			}
		}
	}
	// Sort functions and their counts together.
	pairs := make(map[*cfg.Func]cfg.Counts, len(out.Program.Funcs))
	if hasCounts {
		for j, f := range out.Program.Funcs {
			pairs[f] = out.Counts[j]
		}
	}
	out.Program.SortFuncs()
	if hasCounts {
		for j, f := range out.Program.Funcs {
			out.Counts[j] = pairs[f]
		}
	}
	if allStats {
		for j, f := range out.Program.Funcs {
			index[funcKey{f.Name, f.File}] = j
		}
		if err := mergeStats(out, srcs, index); err != nil {
			return nil, nil, err
		}
		if err := out.CheckStats(); err != nil {
			return nil, nil, fmt.Errorf("profile: merged statistics do not fit the merged counts: %v", err)
		}
		if sameStrata(srcs) {
			if err := mergeStrata(out, srcs, index); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, mismatches, nil
}

// mulAdd returns a + b·w and whether it overflowed.
func mulAdd(a, b, w uint64) (uint64, bool) {
	hi, lo := bits.Mul64(b, w)
	s, carry := bits.Add64(a, lo, 0)
	return s, hi != 0 || carry != 0
}
