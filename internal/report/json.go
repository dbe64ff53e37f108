// Package report renders profiles for people and scripts: aligned text tables, the
// JSON documented in docs/json.md, and Graphviz DOT. Renderers take an io.Writer and
// compute nothing that the profile does not already hold.
package report

import (
	"github.com/fragprof/fragprof/cfg"

	"encoding/json"
	"io"

	"github.com/fragprof/fragprof/profile"
)

// JSONProgram is the object `count --json` prints; `cfg --format json` prints it
// without counts. Fields are only ever added, never renamed (docs/json.md).
type JSONProgram struct {
	Counters  int        `json:"counters"`
	Runs      int        `json:"runs,omitempty"`
	Functions []JSONFunc `json:"functions"`
}

// JSONFunc is one function.
type JSONFunc struct {
	Name    string      `json:"name"`              // the source-level name (C++ demangled)
	Mangled string      `json:"mangled,omitempty"` // the linkage name, when it differs
	File    string      `json:"file"`
	Line    int         `json:"line"`
	Calls   *uint64     `json:"calls,omitempty"`
	Blocks  []JSONBlock `json:"blocks"`
	Edges   []JSONEdge  `json:"edges"`
}

// JSONBlock is one basic block.
type JSONBlock struct {
	ID     int     `json:"id"`
	Label  string  `json:"label"`
	Lines  []int   `json:"lines"`
	Start  string  `json:"start,omitempty"` // file:line:col of the first instruction
	End    string  `json:"end,omitempty"`   // file:line:col of the last instruction
	Instrs int     `json:"instrs"`
	Addr   uint64  `json:"addr,omitempty"`
	Count  *uint64 `json:"count,omitempty"`
}

// JSONEdge is one edge.
type JSONEdge struct {
	From  int     `json:"from"`
	To    int     `json:"to"`
	Kind  string  `json:"kind"`
	Case  string  `json:"case,omitempty"`
	Count *uint64 `json:"count,omitempty"`
}

// JSON converts p to its JSON form.
func JSON(p *profile.Profile) JSONProgram {
	out := JSONProgram{Counters: p.Counters, Runs: p.Runs, Functions: []JSONFunc{}}
	for i, f := range p.Program.Funcs {
		jf := JSONFunc{Name: f.DisplayName(), Mangled: mangled(f), File: f.File, Line: f.Line, Blocks: []JSONBlock{}, Edges: []JSONEdge{}}
		var c *[]uint64
		var ce *[]uint64
		if p.HasCounts() {
			calls := p.Counts[i].Calls()
			jf.Calls = &calls
			c, ce = &p.Counts[i].Blocks, &p.Counts[i].Edges
		}
		for _, b := range f.Blocks {
			jb := JSONBlock{ID: b.ID, Label: b.Label, Lines: b.Lines, Instrs: b.Instrs, Addr: b.Addr}
			if jb.Lines == nil {
				jb.Lines = []int{}
			}
			if b.Start.Line != 0 {
				jb.Start, jb.End = b.Start.String(), b.End.String()
			}
			if c != nil {
				v := (*c)[b.ID]
				jb.Count = &v
			}
			jf.Blocks = append(jf.Blocks, jb)
		}
		for _, e := range f.Edges {
			je := JSONEdge{From: e.From.ID, To: e.To.ID, Kind: e.Kind.String(), Case: e.Case}
			if ce != nil {
				v := (*ce)[e.ID]
				je.Count = &v
			}
			jf.Edges = append(jf.Edges, je)
		}
		out.Functions = append(out.Functions, jf)
	}
	return out
}

// WriteJSON writes p as indented JSON.
func WriteJSON(w io.Writer, p *profile.Profile) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSON(p))
}

// mangled returns f's linkage name when it differs from the name shown (C++).
func mangled(f *cfg.Func) string {
	if d := f.DisplayName(); d != f.Name {
		return f.Name
	}
	return ""
}
