// Package report renders profiles for people and scripts: aligned text tables, the
// JSON documented in docs/json.md, and Graphviz DOT. Renderers take an io.Writer and
// compute nothing that the profile does not already hold.
package report

import (
	"encoding/json"
	"io"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/profile"
)

// JSONProgram is the object `count --json` prints; `cfg --format json` prints it
// without counts. Fields are only ever added, never renamed (docs/json.md).
type JSONProgram struct {
	Counters int `json:"counters"`
	Runs     int `json:"runs,omitempty"`
	// Instructions and Sampled are those of a sampled profile's rates section
	// (profile.Rates): instructions executed (when counted) and PCs sampled.
	Instructions uint64     `json:"instructions,omitempty"`
	Sampled      uint64     `json:"sampled,omitempty"`
	Functions    []JSONFunc `json:"functions"`
	// Graph is the machine-level graph the profile was made from, by address
	// (hotcfg.Graph's JSON form), in the documents of 'fragprof hotcfg --format
	// json' and 'sample --exact': what 'hotcfg --compare' reads back.
	Graph *hotcfg.Graph `json:"graph,omitempty"`
	// Compare is the sampled graph's comparison with the exact one (hotcfg --compare).
	Compare *hotcfg.Comparison `json:"compare,omitempty"`
}

// JSONFunc is one function.
type JSONFunc struct {
	JSONFuncID
	Calls  *uint64     `json:"calls,omitempty"`
	Blocks []JSONBlock `json:"blocks"`
	Edges  []JSONEdge  `json:"edges"`
	// CallEdges are its blocks' direct calls, absent when it makes none (or the
	// profile predates them).
	CallEdges []JSONCallEdge `json:"call_edges,omitempty"`
}

// JSONBlock is one basic block.
type JSONBlock struct {
	JSONBlockID
	JSONBlockSource
	End    string  `json:"end,omitempty"` // file:line:col of the last instruction
	Instrs int     `json:"instrs"`
	Addr   uint64  `json:"addr,omitempty"`
	Count  *uint64 `json:"count,omitempty"`
}

// JSONEdge is one edge.
type JSONEdge struct {
	JSONEdgeID
	Count *uint64 `json:"count,omitempty"`
	// Rate and StdErr are a sampled profile's estimate of the edge's transitions
	// per executed instruction and its standard error, when it has one; Inferred
	// marks an edge implied by the code rather than observed (profile.EdgeRate).
	Rate     *float64 `json:"rate,omitempty"`
	StdErr   *float64 `json:"stderr,omitempty"`
	Inferred bool     `json:"inferred,omitempty"`
}

// JSONCallEdge is the calls of one block to one function (cfg.CallEdge).
type JSONCallEdge struct {
	Block         int     `json:"block"`                    // the calling block's id
	Callee        string  `json:"callee"`                   // the source-level name, as functions[].name
	CalleeMangled string  `json:"callee_mangled,omitempty"` // the linkage name, when it differs
	Sites         int     `json:"sites"`                    // call instructions of the block naming it
	Count         *uint64 `json:"count,omitempty"`          // calls made: the block's count × sites
}

// JSON converts p to its JSON form.
func JSON(p *profile.Profile) JSONProgram {
	out := JSONProgram{Counters: p.Counters, Runs: p.Runs, Functions: []JSONFunc{}}
	if p.Rates != nil {
		out.Instructions, out.Sampled = p.Rates.Instructions, p.Rates.Sampled
	}
	for i, f := range p.Program.Funcs {
		jf := JSONFunc{JSONFuncID: funcID(f), Blocks: []JSONBlock{}, Edges: []JSONEdge{}}
		var c *[]uint64
		var ce *[]uint64
		if p.HasCounts() {
			calls := p.Counts[i].Calls()
			jf.Calls = &calls
			c, ce = &p.Counts[i].Blocks, &p.Counts[i].Edges
		}
		for _, b := range f.Blocks {
			jb := JSONBlock{JSONBlockID: blockID(b), JSONBlockSource: blockSource(b), Instrs: b.Instrs, Addr: b.Addr}
			if b.Start.Line != 0 {
				jb.End = b.End.String()
			}
			if c != nil {
				v := (*c)[b.ID]
				jb.Count = &v
			}
			jf.Blocks = append(jf.Blocks, jb)
		}
		for _, e := range f.Edges {
			je := JSONEdge{JSONEdgeID: edgeID(e)}
			if ce != nil {
				v := (*ce)[e.ID]
				je.Count = &v
			}
			if p.Rates != nil {
				r := p.Rates.Edges[i][e.ID]
				if r.Estimated {
					je.Rate, je.StdErr = &r.Rate, &r.StdErr
				}
				je.Inferred = r.Inferred
			}
			jf.Edges = append(jf.Edges, je)
		}
		for _, e := range f.CallEdges() {
			jc := JSONCallEdge{Block: e.Block.ID, Callee: cfg.Demangle(e.Callee), Sites: e.Sites}
			if jc.Callee != e.Callee {
				jc.CalleeMangled = e.Callee
			}
			if p.HasCounts() {
				v := e.Count(p.Counts[i])
				jc.Count = &v
			}
			jf.CallEdges = append(jf.CallEdges, jc)
		}
		out.Functions = append(out.Functions, jf)
	}
	return out
}

// WriteJSON writes p as indented JSON.
func WriteJSON(w io.Writer, p *profile.Profile) error {
	return JSON(p).Write(w)
}

// Write writes the document as indented JSON.
func (d JSONProgram) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// GraphJSON is the document of a machine-level graph g of runs runs (symbolized
// beforehand, lines giving its blocks' source lines or nil): the functions of its
// profile (hotcfg.Graph.Profile: counts, and a sampled graph's rates), the graph by
// address, and cmp, its comparison with the exact graph, when not nil.
func GraphJSON(g *hotcfg.Graph, runs int, lines func(*hotcfg.Block) []int, cmp *hotcfg.Comparison) JSONProgram {
	d := JSON(g.Profile(runs, lines))
	d.Graph, d.Compare = g, cmp
	return d
}
