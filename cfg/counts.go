// This file implements execution counts over a Func and the flow-conservation validator.

package cfg

import "fmt"

// Counts are the exact execution counts of one function in one or more runs:
// Blocks[i] is how often block i was entered, Edges[j] how often edge j was taken.
// The function's call count is Blocks[0]: the entry block has no predecessors.
type Counts struct {
	Blocks []uint64
	Edges  []uint64
}

// NewCounts returns zero counts shaped for f.
func NewCounts(f *Func) Counts {
	nb := len(f.Blocks)
	buf := make([]uint64, nb+len(f.Edges)) // one allocation: a trial makes thousands
	return Counts{Blocks: buf[:nb:nb], Edges: buf[nb:]}
}

// Clone returns a copy of c that shares no memory with it.
func (c Counts) Clone() Counts {
	d := Counts{Blocks: make([]uint64, len(c.Blocks)), Edges: make([]uint64, len(c.Edges))}
	copy(d.Blocks, c.Blocks)
	copy(d.Edges, c.Edges)
	return d
}

// Calls returns how often the function was called.
func (c Counts) Calls() uint64 {
	if len(c.Blocks) == 0 {
		return 0
	}
	return c.Blocks[0]
}

// Add adds o to c element-wise. The two must have the same shape.
func (c Counts) Add(o Counts) {
	for i := range c.Blocks {
		c.Blocks[i] += o.Blocks[i]
	}
	for i := range c.Edges {
		c.Edges[i] += o.Edges[i]
	}
}

// Flow says how strictly CheckFlow reads the outgoing side of each block.
type Flow uint8

const (
	// Entered: every run may have stopped inside some blocks (exit() from a nested
	// call, a fatal signal), so a block's count may exceed the sum of its out-edges.
	Entered Flow = iota
	// Conserved: main returned, so every activation left through its terminator —
	// a block's count equals the sum of its out-edges — except at a call that may
	// not return (MayNotReturn): an exception caught further up (C++) or
	// pthread_exit leaves such a block without its terminator.
	Conserved
)

// CheckFlow verifies flow conservation of c on f and returns the first violation,
// naming the function and block:
//
//   - for every block but the entry, count = Σ counts of its in-edges (a block is
//     entered only through an edge);
//   - for every block with successors, count ≥ Σ out-edges, with equality when flow is
//     Conserved and the block has no call that may not return (MayNotReturn); not
//     checked in a function that calls setjmp (ReturnsTwice), where a longjmp leaves
//     a block again without entering it.
func (f *Func) CheckFlow(c Counts, flow Flow) error {
	if len(c.Blocks) != len(f.Blocks) || len(c.Edges) != len(f.Edges) {
		return fmt.Errorf("cfg: function %s: counts for %d blocks and %d edges, graph has %d and %d",
			f.Name, len(c.Blocks), len(c.Edges), len(f.Blocks), len(f.Edges))
	}
	for _, b := range f.Blocks {
		if b.ID != 0 {
			var in uint64
			for _, e := range b.Preds {
				in += c.Edges[e.ID]
			}
			if in != c.Blocks[b.ID] {
				return fmt.Errorf("cfg: function %s: block %s entered %d times but its in-edges sum to %d",
					f.Name, b.Label, c.Blocks[b.ID], in)
			}
		}
		if len(b.Succs) == 0 || f.ReturnsTwice {
			continue
		}
		var out uint64
		for _, e := range b.Succs {
			out += c.Edges[e.ID]
		}
		switch {
		case out > c.Blocks[b.ID]:
			return fmt.Errorf("cfg: function %s: block %s entered %d times but left %d times",
				f.Name, b.Label, c.Blocks[b.ID], out)
		case flow == Conserved && b.Traits&MayNotReturn == 0 && out != c.Blocks[b.ID]:
			return fmt.Errorf("cfg: function %s: block %s entered %d times but left only %d times although it has no call that may not return and main returned",
				f.Name, b.Label, c.Blocks[b.ID], out)
		}
	}
	return nil
}
