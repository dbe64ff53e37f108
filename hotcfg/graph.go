// This file defines the machine-level graph every builder produces and its assembly
// from instruction counts and transfers.

package hotcfg

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/cfg"
)

// A Block is a machine basic block: instructions at increasing addresses from Start,
// entered at Start; Last is the address of its last instruction (its terminator when
// the block ends in a branch). Its JSON form is its addresses, instructions and
// count (the members of docs/json.md's "graph").
type Block struct {
	ID     int     `json:"-"`             // index in Graph.Blocks
	Start  uint64  `json:"addr"`          // address of the first instruction
	Last   uint64  `json:"last"`          // address of the last instruction
	End    uint64  `json:"end,omitempty"` // address just past the last instruction (0 if unknown)
	Insns  int     `json:"insns"`         // number of instructions
	Count  float64 `json:"count"`         // executions (exact) or observations (sampled)
	Succs  []*Edge `json:"-"`
	Preds  []*Edge `json:"-"`
	Symbol Symbol  `json:"-"` // filled by Graph.Symbolize
}

// An EdgeKey identifies an edge independently of how the two graphs cut blocks: the
// address of the source block's last instruction (the branch, or the instruction that
// falls through into a block start) and the address the edge leads to.
type EdgeKey struct {
	Src, Dst uint64
}

// An Edge is an observed transfer of control between two blocks.
type Edge struct {
	ID     int
	From   *Block
	To     *Block
	Kind   cfg.EdgeKind
	Count  float64 // transitions (exact) or observed transitions (sampled)
	Rate   float64 // sampled: estimated transitions per executed instruction
	StdErr float64 // sampled: standard error of Rate
	// Inferred marks a sampled edge that was not observed but is implied by the
	// decoded code (Bursts.Infer): a static successor of an executed branch, or the
	// fall-through into a block that only such an edge starts. Its Count, Rate and
	// StdErr are estimates (see Bursts).
	Inferred bool
}

// Key returns the edge's identity.
func (e *Edge) Key() EdgeKey { return EdgeKey{e.From.Last, e.To.Start} }

// A Graph is a machine-level control-flow graph over the whole address space: blocks
// sorted by Start, edges sorted by (From.Start, To.Start). Edges may cross functions
// (calls, returns, tail jumps).
type Graph struct {
	Blocks []*Block
	Edges  []*Edge
	// Instructions is the number of instructions executed, when known (exact runs,
	// or a sampled run whose total was counted); 0 if unknown.
	Instructions uint64
	// Sampled is the number of PCs the graph was built from (0 for exact graphs).
	Sampled uint64
	// Batches is the number of batches the graph was built from.
	Batches int
	// Maps are the executable mappings of the traced process, used to compare graphs
	// of runs loaded at different addresses.
	Maps Maps
}

// Block returns the block that starts at addr, or nil.
func (g *Graph) Block(addr uint64) *Block {
	i := sort.Search(len(g.Blocks), func(i int) bool { return g.Blocks[i].Start >= addr })
	if i < len(g.Blocks) && g.Blocks[i].Start == addr {
		return g.Blocks[i]
	}
	return nil
}

// Check verifies the graph's invariants: IDs are indexes, blocks are sorted and do not
// overlap their Last, edges are listed in their blocks' Succs and Preds.
func (g *Graph) Check() error {
	for i, b := range g.Blocks {
		if b.ID != i {
			return fmt.Errorf("hotcfg: block %#x has ID %d at index %d", b.Start, b.ID, i)
		}
		if b.Last < b.Start {
			return fmt.Errorf("hotcfg: block %#x ends before it starts (%#x)", b.Start, b.Last)
		}
		if i > 0 && g.Blocks[i-1].Start >= b.Start {
			return fmt.Errorf("hotcfg: blocks %#x and %#x out of order", g.Blocks[i-1].Start, b.Start)
		}
	}
	for i, e := range g.Edges {
		if e.ID != i {
			return fmt.Errorf("hotcfg: edge %d has ID %d", i, e.ID)
		}
		if g.Blocks[e.From.ID] != e.From || g.Blocks[e.To.ID] != e.To {
			return fmt.Errorf("hotcfg: edge %#x→%#x joins blocks not in the graph", e.From.Start, e.To.Start)
		}
		if !hasEdge(e.From.Succs, e) || !hasEdge(e.To.Preds, e) {
			return fmt.Errorf("hotcfg: edge %#x→%#x missing from its blocks' lists", e.From.Start, e.To.Start)
		}
	}
	return nil
}

func hasEdge(es []*Edge, e *Edge) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// TotalTransitions returns the sum of the edge counts.
func (g *Graph) TotalTransitions() float64 {
	var t float64
	for _, e := range g.Edges {
		t += e.Count
	}
	return t
}

// Symbolize fills every block's Symbol.
func (g *Graph) Symbolize(s Symbolizer) {
	if s == nil {
		return
	}
	for _, b := range g.Blocks {
		b.Symbol = s.Symbolize(b.Start)
	}
}

// String dumps the graph in a stable text form.
func (g *Graph) String() string {
	var sb strings.Builder
	for _, b := range g.Blocks {
		fmt.Fprintf(&sb, "%#x..%#x n=%d count=%g\n", b.Start, b.Last, b.Insns, b.Count)
		for _, e := range b.Succs {
			fmt.Fprintf(&sb, "  -> %#x %s %g\n", e.To.Start, e.Kind, e.Count)
		}
	}
	return sb.String()
}

// edgeKind says what kind of edge a transfer from src to dst is.
func edgeKind(src Insn, known bool, dst uint64) cfg.EdgeKind {
	if !known {
		return cfg.Unconditional
	}
	switch src.Kind {
	case CondBranch:
		if dst == src.Target && dst != src.Next() {
			return cfg.True
		}
		return cfg.False
	case IndirectJump:
		return cfg.Indirect
	case Call, IndirectCall:
		return cfg.Call
	case Return:
		return cfg.Return
	}
	return cfg.Unconditional
}

// An assembler turns per-instruction counts and transfers into a Graph. Leaders are
// the destinations of transfers and the extra starts given; a block runs from a leader
// over consecutive known instructions to the first branch, the instruction before
// the next leader, or a gap.
type assembler struct {
	code      Code
	counts    map[uint64]float64  // executions of each instruction
	transfers map[EdgeKey]float64 // src instruction → destination
	starts    map[uint64]bool     // extra leaders (starts of runs)
	stats     map[EdgeKey]*edgeStat
	// inferred are the transfers that were not observed but implied by the code;
	// their edges, and fall-through edges into blocks that only they start, are
	// marked Inferred.
	inferred map[EdgeKey]bool
	// complete extends blocks by decoding past the observed instructions up to a
	// branch or the next leader (the Bursts builder's block completion).
	complete bool
}

type edgeStat struct{ rate, se float64 }

const maxCompletion = 512 // instructions decoded past the last observed one, at most

func (a *assembler) build() *Graph {
	leaders := make(map[uint64]bool, len(a.transfers)+len(a.starts))
	observedDst := make(map[uint64]bool, len(a.transfers)+len(a.starts))
	for k := range a.transfers {
		leaders[k.Dst] = true
		if !a.inferred[k] {
			observedDst[k.Dst] = true
		}
	}
	for s := range a.starts {
		observedDst[s] = true
	}
	for s := range a.starts {
		leaders[s] = true
	}
	insns := make(map[uint64]Insn, len(a.counts))
	for addr := range a.counts {
		if in, ok := a.code.Insn(addr); ok {
			insns[addr] = in
		}
	}
	for l := range leaders {
		if _, ok := insns[l]; !ok {
			if in, ok := a.code.Insn(l); ok {
				insns[l] = in
			}
		}
	}
	if a.complete {
		// Decode forward from every known instruction that does not end a block, so that
		// each block reaches its real terminator even where no PC was observed.
		var work []uint64
		for addr := range insns {
			work = append(work, addr)
		}
		sort.Slice(work, func(i, j int) bool { return work[i] < work[j] })
		for _, addr := range work {
			in := insns[addr]
			for n := 0; n < maxCompletion && !in.Kind.IsBranch(); n++ {
				next := in.Next()
				if leaders[next] {
					break
				}
				if _, ok := insns[next]; ok {
					break
				}
				nin, ok := a.code.Insn(next)
				if !ok {
					break
				}
				insns[next] = nin
				in = nin
			}
		}
	}
	addrs := make([]uint64, 0, len(insns))
	for addr := range insns {
		addrs = append(addrs, addr)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })

	g := &Graph{}
	var cur *Block
	var prev Insn
	for _, addr := range addrs {
		in := insns[addr]
		if cur == nil || leaders[addr] || prev.Kind.IsBranch() || prev.Next() != addr {
			cur = &Block{ID: len(g.Blocks), Start: addr, Count: a.counts[addr]}
			g.Blocks = append(g.Blocks, cur)
		}
		cur.Last = addr
		cur.End = in.Next()
		cur.Insns++
		if cur.Count == 0 {
			cur.Count = a.counts[addr]
		}
		prev = in
	}
	// Blocks completed from code inherit the largest count observed in them.
	for _, b := range g.Blocks {
		for _, addr := range addrs[sort.Search(len(addrs), func(i int) bool { return addrs[i] >= b.Start }):] {
			if addr > b.Last {
				break
			}
			if c := a.counts[addr]; c > b.Count {
				b.Count = c
			}
		}
	}
	containing := func(addr uint64) *Block {
		i := sort.Search(len(g.Blocks), func(i int) bool { return g.Blocks[i].Start > addr })
		if i == 0 {
			return nil
		}
		b := g.Blocks[i-1]
		if addr > b.Last {
			return nil
		}
		return b
	}
	type pending struct {
		key      EdgeKey
		from     *Block
		to       *Block
		kind     cfg.EdgeKind
		count    float64
		inferred bool
	}
	var es []pending
	out := make(map[uint64]float64) // transfers out of each src
	for k, c := range a.transfers {
		from, to := containing(k.Src), g.Block(k.Dst)
		if from == nil || to == nil {
			continue
		}
		in, ok := insns[k.Src]
		es = append(es, pending{k, from, to, edgeKind(in, ok, k.Dst), c, a.inferred[k]})
		out[k.Src] += c
	}
	// Fall-through edges into a leader from a block that does not end in a branch.
	for i, b := range g.Blocks {
		last := insns[b.Last]
		if last.Kind.IsBranch() || i+1 >= len(g.Blocks) {
			continue
		}
		nb := g.Blocks[i+1]
		if nb.Start != last.Next() {
			continue
		}
		k := EdgeKey{b.Last, nb.Start}
		if _, ok := a.transfers[k]; ok {
			continue
		}
		c := a.counts[b.Last] - out[b.Last]
		if c <= 0 && a.counts[b.Last] == 0 {
			c = b.Count
		}
		if c <= 0 {
			continue
		}
		es = append(es, pending{k, b, nb, cfg.Unconditional, c, !observedDst[nb.Start]})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].from.Start != es[j].from.Start {
			return es[i].from.Start < es[j].from.Start
		}
		return es[i].to.Start < es[j].to.Start
	})
	for _, p := range es {
		e := &Edge{ID: len(g.Edges), From: p.from, To: p.to, Kind: p.kind, Count: p.count, Inferred: p.inferred}
		if st := a.stats[p.key]; st != nil {
			e.Rate, e.StdErr = st.rate, st.se
		}
		g.Edges = append(g.Edges, e)
		p.from.Succs = append(p.from.Succs, e)
		p.to.Preds = append(p.to.Preds, e)
	}
	return g
}
