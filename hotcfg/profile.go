// This file expresses a machine graph in fragprof's one model of a profiled
// program: cfg's functions with profile's counts and, for a sampled graph, the
// edges' rates in the profile's rates section.

package hotcfg

import (
	"math"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// Profile expresses g as a *profile.Profile of runs runs (0 counts as 1): one
// cfg.Func per function of Split, named by its symbol, whose Blocks[0] is a
// synthetic "entry" block (Addr 0) followed by one block per Block (Label as
// Block.Label, Addr its start, Instrs its instructions, Start its file:line when
// DWARF has it, Lines from lines when not nil, Calls the function it calls when the
// graph shows it calling one) and the function's internal edges with their counts,
// rounded to integers.
//
// The cfg model keeps edges inside a function, and calls and returns out of its
// graph, so the graph's calls and returns (recursive ones too) and the other edges
// that cross functions are folded in: a block that ends in a call gets a Call edge to its return site
// carrying the returns observed there (at most the block's count less its other
// out-edges), and the entry block has an edge to each block entered other than by
// the function's own edges (calls, tail jumps, the program's start) carrying the
// entries missing. A block's count is its Count, raised where needed to the sum of
// its in-edges or of its out-edges, so that the result always satisfies
// CheckFlow(cfg.Entered) and a profile reader accepts it: for an exact graph
// nothing is raised and the entry block's count is the function's entries (its
// calls); for a sampled one the counts are observations.
//
// A sampled graph (Sampled > 0) also gets Rates: each edge of the graph keeps its
// Rate, StdErr and Inferred mark (the edges the profile adds have no estimate),
// with the graph's Instructions and Sampled.
func (g *Graph) Profile(runs int, lines func(*Block) []int) *profile.Profile {
	funcs, _ := g.Split()
	returns := map[*Block]float64{}
	for _, e := range g.Edges {
		if e.Kind == cfg.Return {
			returns[e.To] += e.Count
		}
	}
	funcOf := map[*Block]string{}
	for _, fv := range funcs {
		for _, b := range fv.Blocks {
			funcOf[b] = fv.Name
		}
	}
	p := &profile.Profile{Program: &cfg.Program{}, Runs: max(runs, 1)}
	if g.Sampled > 0 {
		p.Rates = &profile.Rates{Instructions: g.Instructions, Sampled: g.Sampled}
	}
	for _, fv := range funcs {
		f, c, rates := g.funcProfile(fv, returns, funcOf, lines)
		p.Program.Funcs = append(p.Program.Funcs, f)
		p.Counts = append(p.Counts, c)
		if p.Rates != nil {
			p.Rates.Edges = append(p.Rates.Edges, rates)
		}
	}
	return p
}

// A profEdge is an edge of the function being made, before it is added.
type profEdge struct {
	from, to *cfg.Block
	kind     cfg.EdgeKind
	n        uint64
	rate     profile.EdgeRate
}

// funcProfile makes the cfg.Func of one function of the graph, with its counts and
// the rates of its edges.
func (g *Graph) funcProfile(fv *FuncView, returns map[*Block]float64, funcOf map[*Block]string, lines func(*Block) []int) (*cfg.Func, cfg.Counts, []profile.EdgeRate) {
	f := &cfg.Func{Name: fv.Name, File: fv.File, Line: fv.Line}
	entry := f.AddBlock("entry")
	blocks := make(map[*Block]*cfg.Block, len(fv.Blocks))
	for _, b := range fv.Blocks {
		cb := f.AddBlock(b.Label())
		cb.Addr = b.Start
		cb.Instrs = b.Insns
		if b.Symbol.Line > 0 {
			cb.Start = cfg.Pos{File: b.Symbol.File, Line: b.Symbol.Line}
			cb.End = cb.Start
		}
		if lines != nil {
			cb.Lines = lines(b)
		}
		if callee := calleeOf(b, funcOf); callee != "" {
			cb.Calls = []string{callee}
		}
		blocks[b] = cb
	}
	succs := map[*cfg.Block][]profEdge{}
	in := map[*cfg.Block]uint64{}
	out := map[*cfg.Block]uint64{}
	add := func(e profEdge) {
		succs[e.from] = append(succs[e.from], e)
		in[e.to] += e.n
		out[e.from] += e.n
	}
	for _, e := range fv.Edges {
		if e.Kind == cfg.Call || e.Kind == cfg.Return {
			continue // a recursive call enters the function, as every call does
		}
		r := profile.EdgeRate{Estimated: true, Inferred: e.Inferred, Rate: e.Rate, StdErr: e.StdErr}
		add(profEdge{blocks[e.From], blocks[e.To], e.Kind, round(e.Count), r})
	}
	// Call → return site, inside the function, carrying the returns observed there
	// (at most what the call block did not spend on its other edges).
	for _, b := range fv.Blocks {
		r := g.Block(b.End)
		if b.End == 0 || r == nil || blocks[r] == nil || !endsInCall(b) {
			continue
		}
		n := min(round(returns[r]), round(b.Count)-min(out[blocks[b]], round(b.Count)))
		if n > 0 {
			add(profEdge{blocks[b], blocks[r], cfg.Call, n, profile.EdgeRate{}})
		}
	}
	counts := make([]uint64, len(f.Blocks))
	var entryEdges []profEdge
	for _, b := range fv.Blocks {
		cb := blocks[b]
		counts[cb.ID] = max(round(b.Count), in[cb], out[cb])
		if d := counts[cb.ID] - in[cb]; d > 0 {
			entryEdges = append(entryEdges, profEdge{entry, cb, cfg.Unconditional, d, profile.EdgeRate{}})
			counts[entry.ID] += d
		}
	}
	var ecounts []uint64
	var rates []profile.EdgeRate
	addAll := func(es []profEdge) {
		for _, x := range es {
			f.AddEdge(x.from, x.to, x.kind, "")
			ecounts = append(ecounts, x.n)
			rates = append(rates, x.rate)
		}
	}
	addAll(entryEdges)
	for _, b := range fv.Blocks {
		addAll(succs[blocks[b]])
	}
	c := cfg.NewCounts(f)
	copy(c.Blocks, counts)
	copy(c.Edges, ecounts)
	return f, c, rates
}

// round returns the non-negative count x to the nearest integer.
func round(x float64) uint64 {
	if !(x > 0) {
		return 0
	}
	return uint64(math.Round(x))
}

// calleeOf returns the function b calls when the graph shows one call out of it
// (its last instruction, a direct call), else "".
func calleeOf(b *Block, funcOf map[*Block]string) string {
	var callee string
	for _, e := range b.Succs {
		if e.Kind != cfg.Call {
			continue
		}
		if callee != "" {
			return "" // an indirect call with several targets
		}
		callee = funcOf[e.To]
	}
	return callee
}

// endsInCall reports whether one of the edges leaving b is a call.
func endsInCall(b *Block) bool {
	for _, e := range b.Succs {
		if e.Kind == cfg.Call {
			return true
		}
	}
	return false
}
