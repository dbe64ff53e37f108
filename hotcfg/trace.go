// This file implements the exact graph: the builder fed by a complete trace.

package hotcfg

// Trace builds the exact dynamic CFG from a complete trace of one or more threads,
// given as runs of straight-line instructions and the transfers between them. Blocks
// are split at every observed transfer destination and after every branch; an edge's
// count is its number of transitions and a block's count its number of entries.
type Trace struct {
	code      Code
	runs      map[[2]uint64]uint64
	transfers map[EdgeKey]uint64
	starts    map[uint64]bool
	// Instructions counts the instructions of all runs added.
	Instructions uint64
}

// NewTrace returns an empty trace whose instructions are decoded by code.
func NewTrace(code Code) *Trace {
	return &Trace{code: code, runs: map[[2]uint64]uint64{}, transfers: map[EdgeKey]uint64{}, starts: map[uint64]bool{}}
}

// AddRun records one execution of the n straight-line instructions from start
// through last (both addresses of instructions; last is reached from start by falling
// through, possibly over untaken conditional branches).
func (t *Trace) AddRun(start, last uint64, n int) {
	t.runs[[2]uint64{start, last}]++
	t.Instructions += uint64(n)
}

// AddTransfer records a transfer of control from the instruction at src (a branch,
// taken or not) to dst.
func (t *Trace) AddTransfer(src, dst uint64) { t.transfers[EdgeKey{src, dst}]++ }

// AddStart records an address where execution started or resumed without a known
// transfer (the program's entry, a signal handler, a thread's start).
func (t *Trace) AddStart(addr uint64) { t.starts[addr] = true }

// Graph returns the exact graph of everything added so far.
func (t *Trace) Graph() *Graph {
	a := &assembler{code: t.code, counts: map[uint64]float64{}, transfers: map[EdgeKey]float64{}, starts: t.starts}
	for r, n := range t.runs {
		addr := r[0]
		for i := 0; i < 1<<16; i++ {
			a.counts[addr] += float64(n)
			in, ok := t.code.Insn(addr)
			if !ok || addr >= r[1] {
				break
			}
			if in.Kind.IsBranch() {
				// An untaken conditional branch inside a run is a fall-through transfer.
				a.transfers[EdgeKey{addr, in.Next()}] += float64(n)
			}
			addr = in.Next()
		}
	}
	for k, n := range t.transfers {
		a.transfers[k] += float64(n)
	}
	g := a.build()
	g.Instructions = t.Instructions
	return g
}
