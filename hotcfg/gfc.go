// This file implements GFCGaussiano, the hot-CFG builder of O. O. Napoli's thesis
// (docs/methods.md; Appendix 7 of the thesis), routine by routine.

package hotcfg

import (
	"fmt"
	"sort"

	"github.com/fragprof/fragprof/cfg"
)

// Params are GFCGaussiano's four parameters.
type Params struct {
	BinSize        float64 // δ: largest distance (bytes) from a window mean to a bin's centroid
	StdevThreshold float64 // σ_t: a batch is local iff σ(μ_w) ≤ σ_t (bytes)
	WindowSize     int     // N_w: instructions per sliding window
	Recurrent      int     // λ: a bin is hot when its count reaches λ
	// Reach bounds the distance from an instruction address to the centroid of its bin
	// (getBinFromAddress); 0, the default, means the nearest bin at any distance, as
	// the thesis's binary search does. Not one of the thesis's four parameters.
	Reach float64
}

// DefaultParams is the thesis's configuration #45 (binSize 10, stdevThreshold 15,
// windowSize 13, recurrentThreshold 5), best on 5 of its 8 programs.
var DefaultParams = Params{BinSize: 10, StdevThreshold: 15, WindowSize: 13, Recurrent: 5}

func (p Params) String() string {
	return fmt.Sprintf("bin=%g stdev=%g window=%d recurrent=%d", p.BinSize, p.StdevThreshold, p.WindowSize, p.Recurrent)
}

// Grid returns the thesis's 144 configurations, numbered so that Grid()[45] is
// configuration #45: recurrentThreshold varies slowest, then stdevThreshold, then
// windowSize, then binSize, each in increasing order. (With this order the thesis's
// worst configuration, binSize 8, stdev 8, window 6, recurrent 12, is #96; the thesis
// prints #97 and, once, #128.)
func Grid() []Params {
	var out []Params
	for _, r := range []int{5, 8, 12} {
		for _, s := range []float64{8, 10, 12, 15} {
			for _, w := range []int{6, 10, 13} {
				for _, b := range []float64{8, 10, 13, 16} {
					out = append(out, Params{BinSize: b, StdevThreshold: s, WindowSize: w, Recurrent: r})
				}
			}
		}
	}
	return out
}

// GFC is the GFCGaussiano builder. Feed it batches with AddBatch; Graph returns the
// hot CFG built so far.
type GFC struct {
	P    Params
	code Code

	Targets map[uint64]int // branch targets seen, with counts
	Bins    Bins
	blocks  map[uint64]*gblock // BBRepository by entry address
	byAddr  map[uint64]*gblock // the block that holds each instruction
	edges   map[[2]*gblock]int

	batches, sampled, low, high int
}

// A gblock is a basic block of the thesis's repository: an entry address, the
// instructions added in order, and whether its end was found.
type gblock struct {
	entry uint64
	insns []uint64
	done  bool
}

// NewGFC returns a GFCGaussiano builder with parameters p over the instructions of
// code.
func NewGFC(p Params, code Code) *GFC {
	return &GFC{P: p, code: code, Targets: map[uint64]int{}, blocks: map[uint64]*gblock{},
		byAddr: map[uint64]*gblock{}, edges: map[[2]*gblock]int{}}
}

// batchIter is the thesis's batch iterator: it points at the current instruction.
type batchIter struct {
	g   *GFC
	pcs []uint64
	i   int
}

func (it *batchIter) ok() bool { return it.i < len(it.pcs) }

// next advances and reports whether an instruction is left.
func (it *batchIter) next() bool {
	if it.i < len(it.pcs) {
		it.i++
	}
	return it.ok()
}

func (g *GFC) insn(pc uint64) Insn {
	if in, ok := g.code.Insn(pc); ok {
		return in
	}
	return Insn{Addr: pc}
}

// AddBatch runs GFCGaussiano on one batch: window means and their σ; when σ ≤ σ_t,
// lowStddevBatchProcess then buildCFGR(justBuild=false); else highStddevBatchProcess.
func (g *GFC) AddBatch(b Batch) {
	g.batches++
	g.sampled += len(b.PCs)
	means := WindowMeans(b.PCs, g.P.WindowSize)
	if StdDev(means) <= g.P.StdevThreshold {
		g.low++
		g.lowStddevBatchProcess(means)
		g.buildCFGR(&batchIter{g: g, pcs: b.PCs}, false)
	} else {
		g.high++
		g.highStddevBatchProcess(b.PCs)
	}
}

// lowStddevBatchProcess files every window mean into the bins.
func (g *GFC) lowStddevBatchProcess(means []float64) {
	for _, w := range means {
		g.Bins.Add(w, g.P.BinSize)
	}
}

// countTarget is Targets.createOrIncrement(inst.target) for a branch with a static
// target (the target of an indirect branch or a return is not known statically).
func (g *GFC) countTarget(in Insn) {
	if in.Kind.HasTarget() {
		g.Targets[in.Target]++
	}
}

// getBBOrCreate returns the block that holds pc, or a new block entered at pc.
func (g *GFC) getBBOrCreate(pc uint64) *gblock {
	if b := g.byAddr[pc]; b != nil {
		return b
	}
	if b := g.blocks[pc]; b != nil {
		return b
	}
	b := &gblock{entry: pc}
	g.blocks[pc] = b
	return b
}

func (g *GFC) addInstruction(b *gblock, pc uint64) {
	b.insns = append(b.insns, pc)
	if g.byAddr[pc] == nil {
		g.byAddr[pc] = b
	}
}

func (b *gblock) has(pc uint64) bool {
	for _, x := range b.insns {
		if x == pc {
			return true
		}
	}
	return false
}

// createEdge links a → b and counts the transition.
func (g *GFC) createEdge(a, b *gblock) { g.edges[[2]*gblock{a, b}]++ }

// highStddevBatchProcess creates or increments edges between recurrent blocks: for
// each branch whose pc lies in an existing block of a bin with count ≥ λ, an edge to
// the block of the next instruction, built first with buildCFGR(justBuild=true) when
// it does not exist.
func (g *GFC) highStddevBatchProcess(pcs []uint64) {
	for i, pc := range pcs {
		in := g.insn(pc)
		if !in.Kind.IsBranch() {
			continue
		}
		g.countTarget(in)
		bin := g.Bins.ForAddress(pc, g.P.Reach)
		if bin == nil {
			continue
		}
		bb := g.byAddr[pc]
		if bb == nil || bin.Count < g.P.Recurrent {
			continue
		}
		if i+1 >= len(pcs) {
			continue
		}
		nb := g.byAddr[pcs[i+1]]
		if nb == nil {
			g.buildCFGR(&batchIter{g: g, pcs: pcs}, true)
		} else {
			g.createEdge(bb, nb)
		}
	}
}

// buildCFGR is the thesis's recursive builder. The listing's first lines are missing;
// as its text says, it "analyses each instruction of the batch in sequence", so the
// body runs for every instruction from the iterator's position until the batch ends
// or an instruction has no bin (then it returns, as the listing does).
func (g *GFC) buildCFGR(it *batchIter, justBuild bool) {
	for ; it.ok(); it.next() {
		in := g.insn(it.pcs[it.i])
		valid := true // false once the iterator ran out ("inst not exists")
		if in.Kind.IsBranch() {
			g.countTarget(in)
		}
		bin := g.Bins.ForAddress(in.Addr, g.P.Reach)
		if bin == nil && !justBuild {
			return
		}
		recurrent := bin != nil && bin.Count > g.P.Recurrent
		if (recurrent || justBuild) && (g.Targets[in.Addr] > 0 || justBuild) {
			bb := g.getBBOrCreate(in.Addr)
			for !bb.done {
				if other := g.byAddr[in.Addr]; other != nil && other.entry != bb.entry {
					bb.done = true
					g.createEdge(bb, other)
					break
				}
				if !bb.has(in.Addr) {
					g.addInstruction(bb, in.Addr)
				}
				if in.Kind.IsBranch() {
					bb.done = true
					if it.i+1 >= len(it.pcs) {
						break
					}
					next := it.pcs[it.i+1]
					var dst uint64
					if next == in.Target {
						dst = in.Target
					} else {
						// The listing counts nextInst.target here; we count the address
						// actually reached, the start of the fall-through block.
						dst = next
					}
					g.Targets[dst]++
					it.next()
					g.buildCFGR(it, false)
					if tb := g.byAddr[dst]; tb != nil {
						g.createEdge(bb, tb)
					}
				}
				if !it.next() {
					valid = false
					break
				}
				in = g.insn(it.pcs[it.i])
			}
		}
		if valid && in.Kind.IsBranch() && it.i+1 < len(it.pcs) {
			tb, tb2 := g.byAddr[it.pcs[it.i+1]], g.byAddr[in.Addr]
			if tb != nil && tb2 != nil {
				g.createEdge(tb2, tb)
			}
		}
	}
}

// GFCStats are counters of a GFC run.
type GFCStats struct {
	Batches, Sampled, Low, High, Bins, HotBins, Blocks int
}

// Stats returns the builder's counters.
func (g *GFC) Stats() GFCStats {
	s := GFCStats{Batches: g.batches, Sampled: g.sampled, Low: g.low, High: g.high, Bins: len(g.Bins), Blocks: len(g.blocks)}
	for _, b := range g.Bins {
		if b.Count >= g.P.Recurrent {
			s.HotBins++
		}
	}
	return s
}

// Graph returns the hot CFG built so far. A block's count is the sum of its in-edges
// (node counts follow from edge counts, as in the thesis); blocks without
// instructions (created but never filled) are left out.
func (g *GFC) Graph() *Graph {
	out := &Graph{Batches: g.batches, Sampled: uint64(g.sampled)}
	var bs []*gblock
	for _, b := range g.blocks {
		if len(b.insns) > 0 {
			bs = append(bs, b)
		}
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].entry < bs[j].entry })
	idx := map[*gblock]*Block{}
	for _, b := range bs {
		last := b.insns[0]
		for _, x := range b.insns {
			if x > last {
				last = x
			}
		}
		nb := &Block{ID: len(out.Blocks), Start: b.entry, Last: last, Insns: len(b.insns)}
		if in, ok := g.code.Insn(last); ok {
			nb.End = in.Next()
		}
		out.Blocks = append(out.Blocks, nb)
		idx[b] = nb
	}
	type pe struct {
		from, to *Block
		n        int
	}
	var es []pe
	for k, n := range g.edges {
		f, t := idx[k[0]], idx[k[1]]
		if f == nil || t == nil {
			continue
		}
		es = append(es, pe{f, t, n})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].from.Start != es[j].from.Start {
			return es[i].from.Start < es[j].from.Start
		}
		return es[i].to.Start < es[j].to.Start
	})
	for _, p := range es {
		in, ok := g.code.Insn(p.from.Last)
		k := cfg.Unconditional
		if ok {
			k = edgeKind(in, true, p.to.Start)
		}
		e := &Edge{ID: len(out.Edges), From: p.from, To: p.to, Kind: k, Count: float64(p.n)}
		out.Edges = append(out.Edges, e)
		p.from.Succs = append(p.from.Succs, e)
		p.to.Preds = append(p.to.Preds, e)
		p.to.Count += float64(p.n)
	}
	return out
}
