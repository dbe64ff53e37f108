// This file derives call edges (who calls whom, how often) from the direct calls
// the IR reader records in Block.Calls.

package cfg

import "math/bits"

// A CallEdge is the calls one block makes to one callee: Sites call instructions of
// Block that name Callee.
type CallEdge struct {
	Block  *Block
	Callee string // linkage name
	Sites  int    // ≥ 1
}

// CallEdges returns f's call edges: by block, and within a block by callee, in the
// order of each callee's first call.
func (f *Func) CallEdges() []CallEdge {
	var out []CallEdge
	for _, b := range f.Blocks {
		first := len(out)
	calls:
		for _, c := range b.Calls {
			for i := first; i < len(out); i++ {
				if out[i].Callee == c {
					out[i].Sites++
					continue calls
				}
			}
			out = append(out, CallEdge{Block: b, Callee: c, Sites: 1})
		}
	}
	return out
}

// Count returns how many calls e made in runs whose counts of e's function are c:
// the block's count times its call sites (saturated at the largest uint64). The
// number is exact when every execution of the block ran to its end; a call that did
// not return (exit(), longjmp, a fatal signal) still counts once, as in gcov, and the
// calls after it in the block are counted though they were not made.
func (e CallEdge) Count(c Counts) uint64 {
	hi, lo := bits.Mul64(c.Blocks[e.Block.ID], uint64(e.Sites))
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}
