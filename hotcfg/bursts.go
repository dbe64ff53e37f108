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
// Each edge's Rate estimates its transitions per executed instruction with the ratio
// estimator over batches, Σc_b / Σn_b, and StdErr is the usual cluster (batch) standard
// error of a ratio, sqrt(Σ(c_b − r·n_b)² / (B(B−1))) / n̄, which accounts for the
// correlation of transitions within one burst.
type Bursts struct {
	code Code
	// Keep, when in (0,1), trims Graph to the edges with the most observed transitions
	// that together carry that share of them (our own estimate of the hot set, with a
	// margin); 0 or 1 keeps every observed edge.
	Keep float64

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

// Graph returns the graph of everything observed so far (trimmed to Keep).
func (b *Bursts) Graph() *Graph {
	transfers := b.transfers
	if b.Keep > 0 && b.Keep < 1 {
		transfers = topShare(b.transfers, b.Keep)
	}
	stats := map[EdgeKey]*edgeStat{}
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
	a := &assembler{code: b.code, counts: counts, transfers: transfers, stats: stats, complete: true}
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
