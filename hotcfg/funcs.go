// This file groups a graph's blocks into functions, the unit every output uses.

package hotcfg

import (
	"fmt"
	"sort"
)

// A FuncView is one function of a graph: its blocks in address order and the edges
// that stay inside it; edges that leave it are in Graph-level Calls.
type FuncView struct {
	Name   string
	File   string
	Line   int
	Blocks []*Block
	Edges  []*Edge
}

// Split groups g's blocks by the function that holds them (Symbol.Func, or the module
// name in brackets when the symbol is unknown), in order of each function's first
// block, and returns the functions and the edges that cross from one to another.
func (g *Graph) Split() (funcs []*FuncView, cross []*Edge) {
	byName := map[string]*FuncView{}
	fnOf := map[*Block]*FuncView{}
	for _, b := range g.Blocks {
		name := b.Symbol.Func
		if name == "" {
			name = "[" + b.Symbol.Module + "]"
			if b.Symbol.Module == "" {
				name = fmt.Sprintf("[%#x]", b.Start&^0xfff)
			}
		}
		f := byName[name]
		if f == nil {
			f = &FuncView{Name: name, File: b.Symbol.DefFile, Line: b.Symbol.DefLine}
			byName[name] = f
			funcs = append(funcs, f)
		}
		f.Blocks = append(f.Blocks, b)
		fnOf[b] = f
	}
	for _, e := range g.Edges {
		if f := fnOf[e.From]; f == fnOf[e.To] {
			f.Edges = append(f.Edges, e)
		} else {
			cross = append(cross, e)
		}
	}
	sort.SliceStable(funcs, func(i, j int) bool { return funcs[i].Blocks[0].Start < funcs[j].Blocks[0].Start })
	return funcs, cross
}

// Label is how outputs name a block: function+offset and, when known, file:line.
func (b *Block) Label() string {
	s := fmt.Sprintf("%#x", b.Start)
	if b.Symbol.Func != "" {
		s = fmt.Sprintf("%s+%#x", b.Symbol.Func, b.Start-b.Symbol.Entry)
	}
	if b.Symbol.Line > 0 {
		s += fmt.Sprintf(" %s:%d", baseName(b.Symbol.File), b.Symbol.Line)
	}
	return s
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
