// This file compares two profiles: how much of their edge weight they agree on
// (the overlap of llvm-profdata overlap and gcov-tool overlap) and which blocks moved.

package profile

import (
	"math"
	"sort"

	"github.com/fragprof/fragprof/cfg"
)

// FuncStatus says how a function appears in two compared profiles.
type FuncStatus uint8

// The statuses.
const (
	InBoth   FuncStatus = iota
	OnlyA               // only in the first profile
	OnlyB               // only in the second
	Mismatch            // in both, with different CFG checksums: not comparable
)

var funcStatusNames = [...]string{"both", "only in A", "only in B", "CFG differs"}

func (s FuncStatus) String() string { return funcStatusNames[s] }

// FuncOverlap is the comparison of one function.
type FuncOverlap struct {
	Name, File string
	Status     FuncStatus
	// Overlap is Σ min(a_i/A, b_i/B) over the function's weights — its call count and
	// its edge counts — with A and B their sums: 1 when the two profiles split the
	// function's flow alike, 0 when they share nothing. Both never run: 1.
	Overlap float64
	// CallsA and CallsB are the call counts per run.
	CallsA, CallsB float64
}

// BlockMove is a block whose share of the program's block executions changed.
type BlockMove struct {
	Func   string
	Block  *cfg.Block
	ShareA float64 // share of all block executions in A
	ShareB float64
	// PerRunA and PerRunB are the counts divided by the runs.
	PerRunA, PerRunB float64
}

// Comparison is the result of Compare.
type Comparison struct {
	// Overlap is the program-wide overlap: Σ min(a_i/A, b_i/B) over the weights (call
	// and edge counts) of every function, with A and B the program totals. Functions
	// found in one profile only, or with different CFGs, add to the totals and never
	// to the overlap.
	Overlap float64
	Funcs   []FuncOverlap // in the source order of A, then B's own functions
	Moves   []BlockMove   // blocks of functions in both, largest change of share first
}

// Compare compares profiles a and b. Both must carry counts.
func Compare(a, b *Profile) *Comparison {
	type ent struct {
		f *cfg.Func
		c cfg.Counts
	}
	index := func(p *Profile) map[funcKey]ent {
		m := map[funcKey]ent{}
		for i, f := range p.Program.Funcs {
			m[funcKey{f.Name, f.File}] = ent{f, p.Counts[i]}
		}
		return m
	}
	ia, ib := index(a), index(b)
	weights := func(f *cfg.Func, c cfg.Counts) []uint64 {
		return append([]uint64{c.Calls()}, c.Edges...)
	}
	total := func(p *Profile) (w, blocks float64) {
		for i, f := range p.Program.Funcs {
			for _, v := range weights(f, p.Counts[i]) {
				w += float64(v)
			}
			for _, v := range p.Counts[i].Blocks {
				blocks += float64(v)
			}
		}
		return w, blocks
	}
	ta, blocksA := total(a)
	tb, blocksB := total(b)
	runs := func(p *Profile) float64 { return math.Max(1, float64(p.Runs)) }
	cmp := &Comparison{}
	add := func(k funcKey, ea, eb ent, hasA, hasB bool) {
		fo := FuncOverlap{Name: k.name, File: k.file}
		switch {
		case !hasB:
			fo.Status = OnlyA
			fo.CallsA = float64(ea.c.Calls()) / runs(a)
		case !hasA:
			fo.Status = OnlyB
			fo.CallsB = float64(eb.c.Calls()) / runs(b)
		case ea.f.Checksum() != eb.f.Checksum():
			fo.Status = Mismatch
			fo.CallsA, fo.CallsB = float64(ea.c.Calls())/runs(a), float64(eb.c.Calls())/runs(b)
		default:
			fo.CallsA, fo.CallsB = float64(ea.c.Calls())/runs(a), float64(eb.c.Calls())/runs(b)
			wa, wb := weights(ea.f, ea.c), weights(eb.f, eb.c)
			var sa, sb float64
			for i := range wa {
				sa += float64(wa[i])
				sb += float64(wb[i])
			}
			switch {
			case sa == 0 && sb == 0:
				fo.Overlap = 1
			case sa == 0 || sb == 0:
			default:
				for i := range wa {
					fo.Overlap += math.Min(float64(wa[i])/sa, float64(wb[i])/sb)
				}
			}
			if ta > 0 && tb > 0 {
				for i := range wa {
					cmp.Overlap += math.Min(float64(wa[i])/ta, float64(wb[i])/tb)
				}
			}
			for _, blk := range ea.f.Blocks {
				mv := BlockMove{Func: k.name, Block: blk,
					PerRunA: float64(ea.c.Blocks[blk.ID]) / runs(a), PerRunB: float64(eb.c.Blocks[blk.ID]) / runs(b)}
				if blocksA > 0 {
					mv.ShareA = float64(ea.c.Blocks[blk.ID]) / blocksA
				}
				if blocksB > 0 {
					mv.ShareB = float64(eb.c.Blocks[blk.ID]) / blocksB
				}
				cmp.Moves = append(cmp.Moves, mv)
			}
		}
		cmp.Funcs = append(cmp.Funcs, fo)
	}
	for _, f := range a.Program.Funcs {
		k := funcKey{f.Name, f.File}
		eb, ok := ib[k]
		add(k, ia[k], eb, true, ok)
	}
	for _, f := range b.Program.Funcs {
		k := funcKey{f.Name, f.File}
		if _, ok := ia[k]; !ok {
			add(k, ent{}, ib[k], false, true)
		}
	}
	if ta == 0 && tb == 0 {
		cmp.Overlap = 1
	}
	sort.SliceStable(cmp.Moves, func(i, j int) bool {
		return math.Abs(cmp.Moves[i].ShareA-cmp.Moves[i].ShareB) > math.Abs(cmp.Moves[j].ShareA-cmp.Moves[j].ShareB)
	})
	return cmp
}
