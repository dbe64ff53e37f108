// This file finds natural loops: for every back edge t → h (h dominates t), the loop
// of h is h plus every block that reaches t without passing through h (Aho, Sethi and
// Ullman, "Compilers", §10.4). Back edges with the same header share one loop.

package cfg

import "sort"

// A Loop is a natural loop.
type Loop struct {
	Header    *Block
	Blocks    []*Block // the body, header included, by ID
	BackEdges []*Edge  // latch → header
	Exits     []*Edge  // edges from a block of the loop to a block outside it
	Parent    *Loop    // the innermost loop containing this one, or nil
	Depth     int      // 1 for an outermost loop
	in        []bool
}

// Contains reports whether b is in the loop's body.
func (l *Loop) Contains(b *Block) bool { return l.in[b.ID] }

// Loops describes the loops of a function.
type Loops struct {
	// Loops are ordered by header ID; an outer loop comes before the loops it holds
	// when they share no header, and LoopsInnerFirst gives the order that propagation
	// of frequencies needs.
	Loops []*Loop
	// Innermost[b] is the innermost loop containing block b, or nil.
	Innermost []*Loop
	// Back marks the back edges (their target dominates their source).
	Back []bool
	// Retreating marks the edges that go back in a depth-first order from the entry
	// but whose target does not dominate the source: the sign of an irreducible
	// region (a loop with two entries, written with goto). They belong to no loop.
	Retreating []bool
	// Idom are the immediate dominators (Func.Dominators).
	Idom []int
}

// FindLoops finds the natural loops of f.
func (f *Func) FindLoops() *Loops {
	idom := f.Dominators()
	li := &Loops{Innermost: make([]*Loop, len(f.Blocks)), Back: make([]bool, len(f.Edges)),
		Retreating: make([]bool, len(f.Edges)), Idom: idom}
	byHeader := map[int]*Loop{}
	for _, e := range f.Edges {
		if idom[e.From.ID] < 0 || !Dominates(idom, e.To.ID, e.From.ID) {
			continue
		}
		li.Back[e.ID] = true
		l := byHeader[e.To.ID]
		if l == nil {
			l = &Loop{Header: e.To, in: make([]bool, len(f.Blocks))}
			l.in[e.To.ID] = true
			byHeader[e.To.ID] = l
			li.Loops = append(li.Loops, l)
		}
		l.BackEdges = append(l.BackEdges, e)
		// Walk backwards from the latch.
		work := []*Block{e.From}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if l.in[b.ID] {
				continue
			}
			l.in[b.ID] = true
			for _, p := range b.Preds {
				if idom[p.From.ID] >= 0 {
					work = append(work, p.From)
				}
			}
		}
	}
	for _, l := range li.Loops {
		for _, b := range f.Blocks {
			if l.in[b.ID] {
				l.Blocks = append(l.Blocks, b)
				for _, e := range b.Succs {
					if !l.in[e.To.ID] {
						l.Exits = append(l.Exits, e)
					}
				}
			}
		}
	}
	sort.Slice(li.Loops, func(i, j int) bool { return li.Loops[i].Header.ID < li.Loops[j].Header.ID })
	// Nesting: the parent of l is the smallest other loop containing its header.
	for _, l := range li.Loops {
		for _, o := range li.Loops {
			if o != l && o.in[l.Header.ID] && len(o.Blocks) > len(l.Blocks) &&
				(l.Parent == nil || len(o.Blocks) < len(l.Parent.Blocks)) {
				l.Parent = o
			}
		}
	}
	for _, l := range li.Loops {
		for p := l; p != nil; p = p.Parent {
			l.Depth++
		}
		for _, b := range l.Blocks {
			if in := li.Innermost[b.ID]; in == nil || len(in.Blocks) > len(l.Blocks) {
				li.Innermost[b.ID] = l
			}
		}
	}
	li.markRetreating(f)
	return li
}

// markRetreating finds the retreating edges of a depth-first search from the entry
// (edges to a block still on the search stack) that are not back edges.
func (li *Loops) markRetreating(f *Func) {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(f.Blocks))
	type frame struct {
		b *Block
		i int
	}
	stack := []frame{{f.Blocks[0], 0}}
	color[0] = grey
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == len(top.b.Succs) {
			color[top.b.ID] = black
			stack = stack[:len(stack)-1]
			continue
		}
		e := top.b.Succs[top.i]
		top.i++
		switch color[e.To.ID] {
		case white:
			color[e.To.ID] = grey
			stack = append(stack, frame{e.To, 0})
		case grey:
			if !li.Back[e.ID] {
				li.Retreating[e.ID] = true
			}
		}
	}
}

// InnerFirst returns the loops ordered so that every loop comes after the loops it
// contains.
func (li *Loops) InnerFirst() []*Loop {
	out := append([]*Loop(nil), li.Loops...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Depth > out[j].Depth })
	return out
}
