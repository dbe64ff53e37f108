// Package instrument decides where counters go in a function's CFG (a Plan), applies a
// plan to an LLVM IR module as text edits, and describes the result in a metadata blob
// that the runtime carries in the binary, so that counts can be turned back into
// block and edge counts by Reconstruct.
package instrument

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fragprof/fragprof/cfg"
)

// Scheme says which counters a plan places.
type Scheme uint8

const (
	// Blocks counts every block at its entry, plus the fewest edges needed to know
	// every edge count from the in-flow equations (which hold on every run).
	Blocks Scheme = iota
	// Edges counts every edge and the entry block.
	Edges
	// Chords counts only the edges outside a maximum-weight spanning tree (chords.go):
	// the fewest counters that determine every count (Knuth 1973; Ball and Larus
	// 1994). It is the default.
	Chords
)

// DefaultScheme is the scheme of every collecting command unless told otherwise.
const DefaultScheme = Chords

var schemeNames = [...]string{"blocks", "edges", "chords"}

func (s Scheme) String() string { return schemeNames[s] }

// ParseScheme reads a scheme name.
func ParseScheme(s string) (Scheme, error) {
	for i, n := range schemeNames {
		if n == s {
			return Scheme(i), nil
		}
	}
	return 0, fmt.Errorf("unknown counter scheme %q (want chords, edges or blocks)", s)
}

// Place says where a counter's increment goes in the IR.
type Place uint8

const (
	AtEntry    Place = iota // at the top of the counted block, after its phis
	BeforeTerm              // just before the terminator of the edge's source block
	SplitEdge               // in a new block on the edge (a critical edge)
	// AtSelfLoop counts a self-loop (an edge from a block to itself, which no
	// spanning tree can hold) at the top of its block, after its phis: the counter
	// counts the block, and the self-loop's count is the block's less its other
	// in-edges (reconstructChords). Splitting the edge instead would put a jump on
	// every iteration of a loop of one block, and keep it from staying one.
	AtSelfLoop
	// AtStop counts the virtual edge Block → EXIT of a block that may fault: how
	// many activations a fault stopped there. No code increments it; the runtime
	// does, when a fault kills the program, for each frame of the faulting thread's
	// stack (runtime/c/walk.c). Planned only where that walk can be trusted (Walk).
	AtStop
)

// A Counter counts one block or one edge.
type Counter struct {
	Block int // the block counted, or -1
	Edge  int // the edge counted, or -1
	Place Place
}

// A FuncPlan lists the counters of one function, in the order of their slots.
type FuncPlan struct {
	Func     *cfg.Func
	Counters []Counter
	// Scheme is the scheme the plan follows; it differs from the one asked for when
	// chords cannot be used (Fallback says why).
	Scheme   Scheme
	Fallback string
	// Exits lists, for the chords scheme, the blocks joined to the virtual exit:
	// blocks without successors and blocks with a call that may not return.
	Exits []int
	// EntryFromCalls reports, for the chords scheme, a function whose activations
	// are counted at its call sites (llvmir.Module.EntriesFromCalls): no counter at its
	// entry; ReconstructCalls takes their number, the sum over the calling blocks'
	// counts (Unit.Calls).
	EntryFromCalls bool
	// Shared reports a function that several translation units may define (C++
	// inline functions and templates: linkonce_odr, weak_odr, COMDAT). Each unit
	// counts the activations of its own copy, out of line or inlined; the linked
	// program's counts are the sum over the units (dump.Profile adds them up).
	Shared bool

	solveOnce sync.Once
	solve     *solver // the chords scheme's order of solution (solver)
	last      atomic.Pointer[solution]
}

// A solution is counter values and the counts Reconstruct made of them.
type solution struct {
	vals   []uint64
	calls  uint64
	counts cfg.Counts
}

// PlanFunc places counters on f under scheme s, so that every run is counted exactly
// however it ends (but for a signal sent from outside: chords.go).
func PlanFunc(f *cfg.Func, s Scheme) *FuncPlan { return planFunc(f, s, faultsExits, false) }

// Plan is the plan Module makes for f under o. A build that promotes counters
// out of loops (o.Promote: cc and freq above -O0) loses a fault's counts of the loop
// it stopped in anyway, and the optimiser may move a counter's store across the
// faulting access, so its chords leave out the virtual edges of the blocks that may
// fault: one counter fewer for each, at the price of counts near a fault that may be
// off by one, as after a signal sent from outside (ReconstructTolerant). On an
// interpreter's dispatch loop, whose every case reads through a pointer, that halved
// the counters of the loop (bench/kernels/interp.c: 29 % more instructions than
// the plain build, now 11 %; callgrind, a diagnosis). `fragprof count` builds without promotion and keeps them.
//
// fromCalls says that f's activations can be counted at its call sites
// (llvmir.Module.EntriesFromCalls): under chords its entry then takes no counter.
//
// walk says that the runtime will walk the stack of a faulting run (Walk): the
// blocks that may fault then get a counter of their stops (AtStop), which no code
// increments, instead of a virtual edge forced into the tree, which cost a counter
// on a real edge; but for the blocks whose fault the walk cannot see
// (cfg.MayFaultInLibrary), which keep their virtual edge.
func Plan(f *cfg.Func, o Options, fromCalls, walk bool) *FuncPlan {
	faults := faultsNone
	if !o.Promote {
		faults = faultsExits
		if walk {
			faults = faultsWalked
		}
	}
	return planFunc(f, o.Scheme, faults, fromCalls)
}

// faultMode is how a plan accounts for activations stopped by a fault.
type faultMode uint8

const (
	faultsNone   faultMode = iota // not at all: counts near a fault may be off by one
	faultsExits                   // a virtual edge forced into the tree, for each block that may fault
	faultsWalked                  // a stop counter the runtime's stack walk increments (AtStop)
)

func planFunc(f *cfg.Func, s Scheme, faults faultMode, fromCalls bool) *FuncPlan {
	if s == Chords {
		if f.ReturnsTwice {
			p := planFunc(f, Blocks, faults, false)
			p.Fallback = "calls setjmp or fork: control may return into the middle of a block (after a longjmp, or in a forked child), which breaks flow conservation; block counters used"
			return p
		}
		return planChords(f, faults, fromCalls)
	}
	p := &FuncPlan{Func: f, Scheme: s}
	edge := func(e *cfg.Edge) { p.Counters = append(p.Counters, edgeCounter(e)) }
	switch s {
	case Blocks:
		for _, b := range f.Blocks {
			p.Counters = append(p.Counters, Counter{Block: b.ID, Edge: -1, Place: AtEntry})
		}
		for _, b := range f.Blocks {
			if len(b.Preds) < 2 {
				continue
			}
			skip := derivedEdge(b)
			for _, e := range b.Preds {
				if e != skip {
					edge(e)
				}
			}
		}
	case Edges:
		p.Counters = append(p.Counters, Counter{Block: 0, Edge: -1, Place: AtEntry})
		counted := map[int]bool{0: true}
		for _, e := range f.Edges {
			if unsplittable(e) && derivedEdge(e.To) == e {
				// Counted at its target's entry instead, and derived from the
				// target's in-flow (Reconstruct solves the in-flow equations).
				if !counted[e.To.ID] {
					p.Counters = append(p.Counters, Counter{Block: e.To.ID, Edge: -1, Place: AtEntry})
					counted[e.To.ID] = true
				}
				continue
			}
			edge(e)
		}
	}
	return p
}

// unsplittable reports a critical indirect edge (indirectbr, asm goto): no new block
// can be put on it, because the target's address is what the jump goes to.
func unsplittable(e *cfg.Edge) bool {
	return e.Kind == cfg.Indirect && len(e.From.Succs) > 1 && len(e.To.Preds) > 1
}

// derivedEdge chooses the in-edge of b whose count is derived rather than counted: an
// indirect edge that cannot be split if there is one, else a retreating edge (source at or after b in layout order, in clang's output the loop
// latch, the hottest edge into a loop header) if there is one, else the last.
func derivedEdge(b *cfg.Block) *cfg.Edge {
	for _, e := range b.Preds {
		if unsplittable(e) {
			return e // the one edge that cannot carry a counter
		}
	}
	for _, e := range b.Preds {
		if e.From.ID >= b.ID {
			return e
		}
	}
	return b.Preds[len(b.Preds)-1]
}

// Reconstruct turns a function's counter values (in plan order) into the count of
// every block and edge. It fails if the values contradict each other or leave a count
// undetermined (a plan that cannot be solved).
func (p *FuncPlan) Reconstruct(vals []uint64) (cfg.Counts, error) {
	return p.ReconstructCalls(vals, 0)
}

// ReconstructCalls is Reconstruct for a plan whose entry is counted at its call
// sites (EntryFromCalls): calls is the number of its activations. Other plans
// ignore it.
func (p *FuncPlan) ReconstructCalls(vals []uint64, calls uint64) (cfg.Counts, error) {
	if p.Scheme == Chords {
		return p.reconstructChords(vals, nil, calls)
	}
	return p.reconstructInFlow(vals)
}

// ReconstructShared is ReconstructCalls for a caller that only reads the counts: when
// vals are the values of the plan's last call, it returns the same counts again
// without solving: in a 300-trial freq run of a SQLite workload, 691 of the 958
// functions that ran ran exactly alike in every trial. Safe for concurrent use; the caller
// must not modify the counts.
func (p *FuncPlan) ReconstructShared(vals []uint64, calls uint64) (cfg.Counts, error) {
	if m := p.last.Load(); m != nil && m.calls == calls && slices.Equal(m.vals, vals) {
		return m.counts, nil
	}
	c, err := p.ReconstructCalls(vals, calls)
	if err == nil {
		p.last.Store(&solution{vals: slices.Clone(vals), calls: calls, counts: c})
	}
	return c, err
}

// reconstructInFlow solves the flow equations "a block's count is the sum of its
// in-edges" and "the entry's count is the number of calls", which hold on every run.
func (p *FuncPlan) reconstructInFlow(vals []uint64) (cfg.Counts, error) {
	f := p.Func
	if len(vals) != len(p.Counters) {
		return cfg.Counts{}, fmt.Errorf("function %s: %d counter values for %d counters", f.Name, len(vals), len(p.Counters))
	}
	c := cfg.NewCounts(f)
	knownB := make([]bool, len(f.Blocks))
	knownE := make([]bool, len(f.Edges))
	for i, k := range p.Counters {
		if k.Block >= 0 {
			c.Blocks[k.Block], knownB[k.Block] = vals[i], true
		} else {
			c.Edges[k.Edge], knownE[k.Edge] = vals[i], true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			if b.ID == 0 {
				continue
			}
			unknown := -1
			var sum uint64
			n := 0
			for _, e := range b.Preds {
				if knownE[e.ID] {
					sum += c.Edges[e.ID]
				} else {
					unknown, n = e.ID, n+1
				}
			}
			switch {
			case n == 0 && !knownB[b.ID]:
				c.Blocks[b.ID], knownB[b.ID] = sum, true
				changed = true
			case n == 1 && knownB[b.ID]:
				if sum > c.Blocks[b.ID] {
					return cfg.Counts{}, fmt.Errorf("function %s: block %s entered %d times but counted in-edges sum to %d",
						f.Name, b.Label, c.Blocks[b.ID], sum)
				}
				c.Edges[unknown], knownE[unknown] = c.Blocks[b.ID]-sum, true
				changed = true
			}
		}
	}
	for i, k := range knownB {
		if !k {
			return cfg.Counts{}, fmt.Errorf("function %s: the plan leaves block %s undetermined", f.Name, f.Blocks[i].Label)
		}
	}
	for i, k := range knownE {
		if !k {
			return cfg.Counts{}, fmt.Errorf("function %s: the plan leaves edge %s undetermined", f.Name, f.Edges[i])
		}
	}
	return c, nil
}
