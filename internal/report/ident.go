// This file holds what every serialised function, block and edge starts with —
// count's and cfg's JSON (JSONFunc), freq's (JSONFreqFunc) and the HTML page's data
// (html.Func) — so that each is described once. encoding/json writes an embedded
// struct's fields in place of the embedding field, in order, so the objects keep
// their field order.

package report

import "github.com/fragprof/fragprof/cfg"

// JSONFuncID names a function: its source-level name (C++ demangled), its linkage
// name when that differs, and where it is defined.
type JSONFuncID struct {
	Name    string `json:"name"`
	Mangled string `json:"mangled,omitempty"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// JSONBlockID names a basic block within its function: its id (the index in the
// function's blocks) and its IR label.
type JSONBlockID struct {
	ID    int    `json:"id"`
	Label string `json:"label"`
}

// JSONBlockSource is where a block is in the source: the lines its instructions
// come from (never null) and the file:line:col of its first instruction, when
// known.
type JSONBlockSource struct {
	Lines []int  `json:"lines"`
	Start string `json:"start,omitempty"`
}

// JSONEdgeID names an edge: its source and target blocks' ids, its kind
// (cfg.EdgeKind) and, for a switch edge, its case.
type JSONEdgeID struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Kind string `json:"kind"`
	Case string `json:"case,omitempty"`
}

// funcID names f, its linkage name given when it differs from the name shown (C++).
func funcID(f *cfg.Func) JSONFuncID {
	id := JSONFuncID{Name: f.DisplayName(), File: f.File, Line: f.Line}
	if id.Name != f.Name {
		id.Mangled = f.Name
	}
	return id
}

// blockID names b.
func blockID(b *cfg.Block) JSONBlockID { return JSONBlockID{ID: b.ID, Label: b.Label} }

// blockSource places b in the source.
func blockSource(b *cfg.Block) JSONBlockSource {
	s := JSONBlockSource{Lines: b.Lines}
	if s.Lines == nil {
		s.Lines = []int{}
	}
	if b.Start.Line != 0 {
		s.Start = b.Start.String()
	}
	return s
}

// edgeID names e.
func edgeID(e *cfg.Edge) JSONEdgeID {
	return JSONEdgeID{From: e.From.ID, To: e.To.ID, Kind: e.Kind.String(), Case: e.Case}
}
