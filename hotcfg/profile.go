// This file converts a machine graph to fragprof's shared CFG and profile model.

package hotcfg

import (
	"fmt"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// ToProfile expresses g as a *profile.Profile: one cfg.Func per function of Split,
// one machine block per Block (Label = address, Addr set, Start = file:line of its
// first instruction when DWARF has it, Lines from lines when not nil) and the
// function's internal edges with their counts.
//
// The cfg model keeps edges inside a function, so the edges that cross functions are
// folded in: Blocks[0] of every Func is a synthetic "entry" block (Addr 0) with an
// edge to each block entered other than by the function's own edges (calls, tail
// jumps, the program's start), carrying the missing entries; and a block that ends in
// a call gets a Call edge to its return site carrying the returns observed there.
// For an exact graph the result satisfies CheckFlow(cfg.Entered).
func (g *Graph) ToProfile(lines func(*Block) []int) *profile.Profile {
	funcs, cross := g.Split()
	returns := map[*Block]float64{}
	for _, e := range cross {
		if e.Kind == cfg.Return {
			returns[e.To] += e.Count
		}
	}
	p := &profile.Profile{Program: &cfg.Program{}, Runs: 1}
	for _, fv := range funcs {
		f := &cfg.Func{Name: fv.Name, File: fv.File, Line: fv.Line}
		entry := f.AddBlock("entry")
		blocks := map[*Block]*cfg.Block{}
		in := map[*Block]float64{}
		for _, b := range fv.Blocks {
			cb := f.AddBlock(fmt.Sprintf("%#x", b.Start))
			cb.Addr = b.Start
			cb.Instrs = b.Insns
			if b.Symbol.Line > 0 {
				cb.Start = cfg.Pos{File: b.Symbol.File, Line: b.Symbol.Line}
				cb.End = cb.Start
			}
			if lines != nil {
				cb.Lines = lines(b)
			}
			blocks[b] = cb
		}
		type pe struct {
			from, to *cfg.Block
			kind     cfg.EdgeKind
			n        float64
		}
		succs := map[*cfg.Block][]pe{}
		for _, e := range fv.Edges {
			succs[blocks[e.From]] = append(succs[blocks[e.From]], pe{blocks[e.From], blocks[e.To], e.Kind, e.Count})
			in[e.To] += e.Count
		}
		// Call → return site, inside the function, carrying the returns observed
		// there (at most what the call block did not spend on its other edges).
		for _, b := range fv.Blocks {
			r := g.Block(b.End)
			if b.End == 0 || r == nil || blocks[r] == nil || !endsInCall(b) {
				continue
			}
			n := returns[r]
			var out float64
			for _, x := range succs[blocks[b]] {
				out += x.n
			}
			n = min(n, b.Count-out)
			if n > 0 {
				succs[blocks[b]] = append(succs[blocks[b]], pe{blocks[b], blocks[r], cfg.Call, n})
				in[r] += n
			}
		}
		var entryEdges []pe
		for _, b := range fv.Blocks {
			if d := b.Count - in[b]; d > 0 {
				entryEdges = append(entryEdges, pe{entry, blocks[b], cfg.Unconditional, d})
			}
		}
		var counts []float64
		var ecounts []float64
		var total float64
		for _, x := range entryEdges {
			f.AddEdge(x.from, x.to, x.kind, "")
			ecounts = append(ecounts, x.n)
			total += x.n
		}
		counts = append(counts, total)
		for _, b := range fv.Blocks {
			for _, x := range succs[blocks[b]] {
				f.AddEdge(x.from, x.to, x.kind, "")
				ecounts = append(ecounts, x.n)
			}
			counts = append(counts, b.Count)
		}
		c := cfg.NewCounts(f)
		for i, n := range counts {
			c.Blocks[i] = uint64(n + 0.5)
		}
		for i, n := range ecounts {
			c.Edges[i] = uint64(n + 0.5)
		}
		p.Program.Funcs = append(p.Program.Funcs, f)
		p.Counts = append(p.Counts, c)
	}
	return p
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
