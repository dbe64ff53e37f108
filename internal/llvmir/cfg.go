// This file builds the shared CFG model (package cfg) from a parsed function.

package llvmir

import (
	"sort"

	"github.com/fragprof/fragprof/cfg"
)

var targetKind = map[TargetKind]cfg.EdgeKind{
	Uncond: cfg.Unconditional, CondTrue: cfg.True, CondFalse: cfg.False,
	SwitchCase: cfg.Case, SwitchDefault: cfg.Default, IndirectDest: cfg.Indirect, Unwind: cfg.Unwind,
}

// CFG returns the control-flow graph of f: one cfg.Block per IR block (same order, so
// cfg block i is f.Blocks[i]) and one cfg.Edge per terminator target. Source positions
// come from the instructions' !dbg locations; the function's file and line from its
// DISubprogram.
func (m *Module) CFG(f *Func) *cfg.Func {
	g := &cfg.Func{Name: f.Name}
	if _, loc, ok := m.Subprogram(f.Dbg); ok {
		g.File, g.Line = loc.File, loc.Line
	}
	index := map[string]*cfg.Block{}
	for _, b := range f.Blocks {
		cb := g.AddBlock(b.Name)
		index[b.Name] = cb
		cb.Instrs = len(b.Instrs)
		lines := map[int]bool{}
		for _, in := range b.Instrs {
			loc, ok := m.Location(in.Dbg)
			if !ok || loc.Line == 0 {
				continue
			}
			p := cfg.Pos{File: loc.File, Line: loc.Line, Col: loc.Col}
			if cb.Start.Line == 0 {
				cb.Start = p
			}
			cb.End = p
			if g.File == "" {
				g.File = loc.File
			}
			if loc.File == g.File {
				lines[loc.Line] = true
			}
		}
		for l := range lines {
			cb.Lines = append(cb.Lines, l)
		}
		sort.Ints(cb.Lines)
	}
	for i, b := range f.Blocks {
		for _, t := range b.Term().Targets {
			g.AddEdge(g.Blocks[i], index[t.Label], targetKind[t.Kind], t.Case)
		}
	}
	m.annotate(g, f)
	return g
}
