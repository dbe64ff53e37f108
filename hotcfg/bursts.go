// This file implements Bursts, fragprof's own hot-CFG builder.

package hotcfg

import (
	"math"
	"sort"
)

// Bursts builds the hot CFG from what a burst really shows. In a batch, each branch
// followed by the next PC is an observed transition (taken or fall-through, calls and
// returns included); every instruction seen is an observed execution. Leaders are the
// observed destinations; blocks are completed by decoding the code (Code) forward from
// the observed instructions to their terminators; fall-through edges into a leader get
// the count of the instruction that falls through.
//
// Each observed edge's Rate estimates its transitions per executed instruction with
// the ratio estimator over batches, Σc_b / Σn_b, and StdErr is the usual cluster
// (batch) standard error of a ratio, sqrt(Σ(c_b − r·n_b)² / (B(B−1))) / n̄, which
// accounts for the correlation of transitions within one burst.
//
// With Infer, the graph also holds the edges the code implies but no burst showed:
// every executed block ends in its terminator (straight-line code runs to its end),
// so a direct jump or call adds its target, and a conditional branch its taken target
// and its fall-through. Such edges are marked Inferred. The terminator at a is
// executed n_a times (its own observations, or more if an instruction before it in the
// same straight-line run was observed more often); o_a of its successors were
// observed, c_d of them to d. A successor d of the k static ones gets the share
// p_d = (c_d + ½)/(o_a + k/2) (the Jeffreys estimate of a direction's probability: a
// direct jump or call whose transfer was not seen gets p = 1), so Count = n_a·p_d. Its
// StdErr combines the binomial uncertainty of p_d, p(1−p)/(o_a + k/2 + 1), and the
// Poisson one of n_a (the delta method; it ignores the correlation within bursts).
type Bursts struct {
	code Code
	// Keep, when in (0,1), trims Graph to the edges with the largest estimated counts
	// (observed, and inferred with Infer) that together carry that share of them (our
	// own estimate of the hot set, with a margin); 0 or 1 keeps every edge.
	Keep float64
	// Infer adds the edges implied by the code around the observed PCs (see Bursts).
	Infer bool

	counts    map[uint64]float64
	transfers map[EdgeKey]float64
	sums      map[EdgeKey]*ratioSums
	batches   int
	sampled   uint64
	sumN      float64
	sumN2     float64
	local     map[EdgeKey]float64
}

type ratioSums struct{ c, c2, cn float64 }

// NewBursts returns an empty Bursts builder over the instructions of code.
func NewBursts(code Code) *Bursts {
	return &Bursts{code: code, counts: map[uint64]float64{}, transfers: map[EdgeKey]float64{},
		sums: map[EdgeKey]*ratioSums{}, local: map[EdgeKey]float64{}}
}

// AddBatch adds one batch's observations.
func (b *Bursts) AddBatch(bt Batch) {
	if len(bt.PCs) == 0 {
		return
	}
	b.batches++
	b.sampled += uint64(len(bt.PCs))
	n := float64(len(bt.PCs))
	b.sumN += n
	b.sumN2 += n * n
	clear(b.local)
	for i, pc := range bt.PCs {
		b.counts[pc]++
		if i+1 == len(bt.PCs) {
			break
		}
		in, ok := b.code.Insn(pc)
		if !ok || !in.Kind.IsBranch() {
			continue
		}
		b.local[EdgeKey{pc, bt.PCs[i+1]}]++
	}
	for k, c := range b.local {
		b.transfers[k] += c
		s := b.sums[k]
		if s == nil {
			s = &ratioSums{}
			b.sums[k] = s
		}
		s.c += c
		s.c2 += c * c
		s.cn += c * n
	}
}

// Sampled returns the number of PCs added.
func (b *Bursts) Sampled() uint64 { return b.sampled }

// Graph returns the graph of everything observed so far (with Infer, also what the
// code implies), trimmed to Keep.
func (b *Bursts) Graph() *Graph {
	transfers := b.transfers
	stats := map[EdgeKey]*edgeStat{}
	var inferred map[EdgeKey]bool
	if b.Infer {
		transfers = make(map[EdgeKey]float64, len(b.transfers))
		for k, c := range b.transfers {
			transfers[k] = c
		}
		inferred = map[EdgeKey]bool{}
		for k, e := range b.infer() {
			transfers[k] = e.count
			inferred[k] = true
			stats[k] = &edgeStat{rate: e.count / b.sumN, se: e.se / b.sumN}
		}
	}
	if b.Keep > 0 && b.Keep < 1 {
		transfers = topShare(transfers, b.Keep)
	}
	B := float64(b.batches)
	for k, s := range b.sums {
		r := s.c / b.sumN
		st := &edgeStat{rate: r}
		if B > 1 {
			nbar := b.sumN / B
			ss := s.c2 - 2*r*s.cn + r*r*b.sumN2
			if ss < 0 {
				ss = 0
			}
			st.se = math.Sqrt(ss/(B*(B-1))) / nbar
		}
		stats[k] = st
	}
	counts := b.counts
	a := &assembler{code: b.code, counts: counts, transfers: transfers, stats: stats, inferred: inferred, complete: true}
	g := a.build()
	g.Sampled = b.sampled
	g.Batches = b.batches
	return g
}

// topShare returns the entries with the largest values that together carry share of
// the total (ties broken by key, so the result is deterministic).
func topShare(m map[EdgeKey]float64, share float64) map[EdgeKey]float64 {
	type kv struct {
		k EdgeKey
		v float64
	}
	var all []kv
	var total float64
	for k, v := range m {
		all = append(all, kv{k, v})
		total += v
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		if all[i].k.Src != all[j].k.Src {
			return all[i].k.Src < all[j].k.Src
		}
		return all[i].k.Dst < all[j].k.Dst
	})
	out := map[EdgeKey]float64{}
	var acc float64
	for _, x := range all {
		if acc >= share*total {
			break
		}
		out[x.k] = x.v
		acc += x.v
	}
	return out
}

// An estimate is an inferred edge's count and its standard error.
type estimate struct{ count, se float64 }

// jeffreys is the pseudo-count added to each static successor of a branch.
const jeffreys = 0.5

// infer returns the edges implied by the code: the static successors, not observed,
// of the terminators of the straight-line runs that hold observed PCs.
func (b *Bursts) infer() map[EdgeKey]estimate {
	// n[a]: estimated executions of each terminator a reached from an observed PC.
	n := map[uint64]float64{}
	term := map[uint64]uint64{} // instruction → its run's terminator (0: none)
	for pc, c := range b.counts {
		a, ok := b.terminator(pc, term)
		if ok && c > n[a] {
			n[a] = c
		}
	}
	// Observed transitions out of each terminator.
	out := map[uint64]float64{}
	for k, c := range b.transfers {
		if _, ok := n[k.Src]; ok {
			out[k.Src] += c
		}
	}
	res := map[EdgeKey]estimate{}
	for a, na := range n {
		in, _ := b.code.Insn(a)
		var succs []uint64
		switch in.Kind {
		case CondBranch:
			succs = []uint64{in.Target, in.Next()}
			if in.Target == in.Next() {
				succs = succs[:1]
			}
		case Jump, Call:
			succs = []uint64{in.Target}
		}
		k := float64(len(succs))
		for _, d := range succs {
			key := EdgeKey{a, d}
			if _, seen := b.transfers[key]; seen {
				continue
			}
			if _, ok := b.code.Insn(d); !ok {
				continue // outside the code we can decode: no block to lead to
			}
			m := out[a] + k*jeffreys
			p := jeffreys / m
			varP := p * (1 - p) / (m + 1)
			res[key] = estimate{count: na * p, se: math.Sqrt(na*na*varP + p*p*na)}
		}
	}
	return res
}

// terminator returns the first branch at or after pc in straight-line code (within
// maxCompletion instructions), memoised in term.
func (b *Bursts) terminator(pc uint64, term map[uint64]uint64) (uint64, bool) {
	var path []uint64
	a := pc
	var found uint64
	for i := 0; i < maxCompletion; i++ {
		if t, ok := term[a]; ok {
			found = t
			break
		}
		in, ok := b.code.Insn(a)
		if !ok {
			break
		}
		path = append(path, a)
		if in.Kind.IsBranch() {
			found = a
			break
		}
		a = in.Next()
	}
	for _, x := range path {
		term[x] = found
	}
	return found, found != 0
}
