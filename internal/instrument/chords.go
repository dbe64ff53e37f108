// This file implements the chords scheme: counters only on the edges outside a
// maximum-weight spanning tree, every other count recovered by flow conservation
// (Knuth, "The Art of Computer Programming", vol. 1, §2.3.4.1, 1973; Ball and Larus,
// "Optimally Profiling and Tracing Programs", TOPLAS 16(4), 1994). The tree is
// heaviest under the static estimate (cfg.EstimateStatic), so counters sit on edges
// predicted cold.
//
// The graph is the CFG plus a virtual EXIT node, a virtual edge EXIT → entry that
// carries the calls, and a virtual edge b → EXIT for every block b where an
// activation can end: blocks without successors (return, unreachable), blocks with
// a call that may not return (exit() deeper down, longjmp, a signal raised in the
// callee: cfg.MayNotReturn) and blocks with an instruction that may fault (a load or
// store through a pointer, a division: cfg.MayFault) unless the build promotes
// counters (see Plan). On that graph flow is conserved at every node on every run
// that ends by exit(), by returning from main, by a signal raised inside a call, or by
// a fault (SIGSEGV, SIGBUS, SIGFPE): the virtual edge of b carries how often an
// activation stopped in b. The virtual b →
// EXIT edges are forced into the tree (they cannot be counted), so chords are always
// countable: real edges, or EXIT → entry (a counter at the entry). Each virtual edge
// costs one more chord, which the maximum spanning tree puts on a cold edge.
//
// A signal sent by another process (SIGINT, SIGTERM, SIGKILL in continuous mode)
// can stop an activation in a block with none of these, where no virtual edge
// accounts for it: the counts around that block may then be off by one.
// ReconstructTolerant detects the contradictions this can cause and repairs the
// simplest case.

package instrument

import (
	"fmt"
	"sort"
	"sync"

	"github.com/fragprof/fragprof/cfg"
)

// scratch holds the solver's working space between calls of reconstructChords.
var scratch = sync.Pool{New: func() any { return new([]uint64) }}

// planChords places counters on the chords of a maximum-weight spanning tree. The
// blocks that may fault get a virtual edge into the tree, a stop counter, or
// nothing, as faults says: see Plan.
func planChords(f *cfg.Func, faults faultMode, fromCalls bool) *FuncPlan {
	p := &FuncPlan{Func: f, Scheme: Chords}
	nb := len(f.Blocks)
	exit := nb
	stops := cfg.MayNotReturn
	switch faults {
	case faultsExits:
		stops |= cfg.MayFault
	case faultsWalked:
		stops |= cfg.MayFaultInLibrary
	}
	var walked []Counter // the stop counters, after the chords
	for _, b := range f.Blocks {
		switch {
		case len(b.Succs) == 0 || b.Traits&stops != 0:
			p.Exits = append(p.Exits, b.ID)
		case faults == faultsWalked && b.Traits&cfg.MayFault != 0:
			walked = append(walked, Counter{Block: b.ID, Edge: -1, Place: AtStop})
		}
	}
	uf := newUnionFind(nb + 1)
	for _, b := range p.Exits {
		uf.union(b, exit) // forced: a star around EXIT has no cycle
	}
	st := f.EstimateStatic()
	// Candidates: the real edges and EXIT → entry (index len(f.Edges)), heaviest first.
	type cand struct {
		edge   int // edge ID, or -1 for EXIT → entry
		weight float64
	}
	cands := make([]cand, 0, len(f.Edges)+1)
	for _, e := range f.Edges {
		cands = append(cands, cand{e.ID, st.EdgeFreq[e.ID]})
	}
	// A function counted at its call sites knows the flow on EXIT → entry: no
	// counter there, nor a place in the tree (one chord fewer). Not without an exit,
	// where that flow could not come back to EXIT.
	p.EntryFromCalls = fromCalls && len(p.Exits) > 0
	if !p.EntryFromCalls {
		cands = append(cands, cand{-1, st.Freq[0]})
	}
	// Critical edges that cannot take a counter of their own come first, so that the
	// tree takes as many as it can (LLVM's CFGMST does the same for landing pads):
	// an unwind edge into a shared landing pad needs a cloned landing pad to be
	// counted, an indirect edge (indirectbr, asm goto) cannot be split at all.
	hard := func(c cand) bool { return c.edge >= 0 && hardToSplit(f.Edges[c.edge]) }
	sort.SliceStable(cands, func(i, j int) bool {
		if hi, hj := hard(cands[i]), hard(cands[j]); hi != hj {
			return hi
		}
		return cands[i].weight > cands[j].weight
	})
	var chords []int
	entryChord := false
	for _, c := range cands {
		u, v := exit, 0
		if c.edge >= 0 {
			e := f.Edges[c.edge]
			u, v = e.From.ID, e.To.ID
		}
		if uf.union(u, v) {
			continue // a tree edge
		}
		if c.edge < 0 {
			entryChord = true
		} else {
			chords = append(chords, c.edge)
		}
	}
	if entryChord {
		p.Counters = append(p.Counters, Counter{Block: 0, Edge: -1, Place: AtEntry})
	}
	sort.Ints(chords)
	selfCounted := map[*cfg.Block]bool{} // one self-loop a block: its counter counts the block
	for _, id := range chords {
		c := edgeCounter(f.Edges[id])
		if e := f.Edges[id]; e.From == e.To && !selfCounted[e.From] {
			c.Place = AtSelfLoop
			selfCounted[e.From] = true
		}
		p.Counters = append(p.Counters, c)
	}
	p.Counters = append(p.Counters, walked...)
	return p
}

// hardToSplit reports a critical edge that a counter cannot sit on by an ordinary
// split: an unwind edge (its target is an exception-handling pad, which only unwind
// edges may enter) or an indirect edge (the target's address is taken elsewhere).
func hardToSplit(e *cfg.Edge) bool {
	return (e.Kind == cfg.Unwind || e.Kind == cfg.Indirect) && len(e.From.Succs) > 1 && len(e.To.Preds) > 1
}

// edgeCounter places the counter of edge e: before the source's terminator when the
// source has one successor, at the target's entry when the target has one
// predecessor, else on a new block that splits the edge (ORC's Fig. 3).
func edgeCounter(e *cfg.Edge) Counter {
	c := Counter{Block: -1, Edge: e.ID, Place: SplitEdge}
	switch {
	case len(e.From.Succs) == 1:
		c.Place = BeforeTerm
	case len(e.To.Preds) == 1 && e.To.ID != 0:
		c.Place = AtEntry
	}
	return c
}

type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

// union joins the sets of a and b and reports whether they were apart.
func (u unionFind) union(a, b int) bool {
	a, b = u.find(a), u.find(b)
	if a == b {
		return false
	}
	u[a] = b
	return true
}

// flowGraph is the chords graph of a plan: real edges 0..E-1, then EXIT → entry,
// then b → EXIT for each of the plan's exits, then for each stop counter (AtStop).
type flowGraph struct {
	from, to []int
	nodes    int
	stop     map[int]int // the flow edge of each stop counter's block
}

func (p *FuncPlan) flowGraph() flowGraph {
	f := p.Func
	g := flowGraph{nodes: len(f.Blocks) + 1}
	exit := len(f.Blocks)
	for _, e := range f.Edges {
		g.from, g.to = append(g.from, e.From.ID), append(g.to, e.To.ID)
	}
	g.from, g.to = append(g.from, exit), append(g.to, 0)
	for _, b := range p.Exits {
		g.from, g.to = append(g.from, b), append(g.to, exit)
	}
	for _, c := range p.Counters {
		if c.Place == AtStop {
			if g.stop == nil {
				g.stop = map[int]int{}
			}
			g.stop[c.Block] = len(g.from)
			g.from, g.to = append(g.from, c.Block), append(g.to, exit)
		}
	}
	return g
}

// allZero reports whether every value is 0.
func allZero(vals []uint64) bool {
	for _, v := range vals {
		if v != 0 {
			return false
		}
	}
	return true
}

// A flowError is a contradiction between counter values and flow conservation.
type flowError struct {
	fn, block string
}

func (e *flowError) Error() string {
	return fmt.Sprintf("function %s: the counter values contradict flow conservation at block %s", e.fn, e.block)
}

// A solver is the order in which reconstructChords determines a plan's unknown
// edges: the unknown edges form a spanning tree, so repeatedly some node has exactly
// one unknown edge, which its equation determines (peeling the tree from its
// leaves). The order depends on the graph and the chords only, so it is found once
// per plan; each reconstruction then replays it without allocating more than its
// result (a freq trial of sqlite3 reconstructs 3,000 functions).
type solver struct {
	g     flowGraph
	chord []int       // the flow edge of each counter
	self  []int       // the counters of self-loops that count their block (AtSelfLoop)
	steps []solveStep // the unknown edges, in the order they are determined
	err   error       // the plan cannot be solved (a structural error)
}

// A solveStep determines edge from the equation of node.
type solveStep struct{ node, edge int }

// solver returns the plan's solver, building it on first use.
func (p *FuncPlan) solver() *solver {
	p.solveOnce.Do(func() { p.solve = p.buildSolver() })
	return p.solve
}

func (p *FuncPlan) buildSolver() *solver {
	f := p.Func
	g := p.flowGraph()
	s := &solver{g: g, chord: make([]int, len(p.Counters))}
	exit := len(f.Blocks)
	entryEdge := len(f.Edges)
	ne := len(g.from)
	known := make([]bool, ne)
	selfAt := map[int]bool{} // blocks with a self-loop counted at the block
	for i, c := range p.Counters {
		id := c.Edge
		if c.Place == AtStop {
			id = g.stop[c.Block]
		} else if c.Block == 0 {
			id = entryEdge
		} else if c.Block > 0 || c.Edge < 0 {
			s.err = fmt.Errorf("function %s: counter %d is not a chord", f.Name, i)
			return s
		}
		s.chord[i], known[id] = id, true
		if c.Place == AtSelfLoop {
			if g.from[id] != g.to[id] || selfAt[g.from[id]] {
				s.err = fmt.Errorf("function %s: counter %d counts a block for an edge that is not its only self-loop counted so", f.Name, i)
				return s
			}
			selfAt[g.from[id]] = true
			s.self = append(s.self, i)
		}
	}
	if p.EntryFromCalls {
		known[entryEdge] = true // its flow is given: the calls
	}
	label := func(n int) string {
		if n == exit {
			return "EXIT"
		}
		return f.Blocks[n].Label
	}
	unknown := make([][]int, g.nodes) // the unknown edges at each node
	for e := 0; e < ne; e++ {
		if known[e] {
			continue
		}
		unknown[g.from[e]] = append(unknown[g.from[e]], e)
		if g.to[e] != g.from[e] {
			unknown[g.to[e]] = append(unknown[g.to[e]], e)
		}
	}
	live := func(n int) []int { // the still-unknown edges at n
		k := unknown[n][:0]
		for _, e := range unknown[n] {
			if !known[e] {
				k = append(k, e)
			}
		}
		unknown[n] = k
		return k
	}
	var queue []int
	for n := 0; n < g.nodes; n++ {
		if len(live(n)) == 1 {
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		u := live(n)
		if len(u) != 1 {
			continue
		}
		e := u[0]
		if g.from[e] == g.to[e] {
			s.err = fmt.Errorf("function %s: self-loop at %s is not counted", f.Name, label(n))
			return s
		}
		known[e] = true
		s.steps = append(s.steps, solveStep{n, e})
		for _, m := range []int{g.from[e], g.to[e]} {
			if len(live(m)) == 1 {
				queue = append(queue, m)
			}
		}
	}
	for e := 0; e < ne; e++ {
		if !known[e] {
			if e < len(f.Edges) {
				s.err = fmt.Errorf("function %s: the plan leaves edge %s undetermined", f.Name, f.Edges[e])
			} else {
				s.err = fmt.Errorf("function %s: the plan leaves a virtual edge undetermined", f.Name)
			}
			return s
		}
	}
	return s
}

// reconstructChords solves the conservation equations of the chords graph in the
// solver's order. extra, if not nil, adds known deficits: extra[b] more activations
// stopped in block b than the virtual edges account for.
func (p *FuncPlan) reconstructChords(vals []uint64, extra map[int]uint64, calls uint64) (cfg.Counts, error) {
	f := p.Func
	if len(vals) != len(p.Counters) {
		return cfg.Counts{}, fmt.Errorf("function %s: %d counter values for %d counters", f.Name, len(vals), len(p.Counters))
	}
	s := p.solver()
	if s.err != nil {
		return cfg.Counts{}, s.err
	}
	if !p.EntryFromCalls {
		calls = 0
	}
	if len(extra) == 0 && calls == 0 && allZero(vals) {
		// The equations are linear with a unique solution: no flow on the chords is
		// no flow anywhere. Most functions of a large program do not run in a given
		// trial (sqlite3: about 90 % of 3,000).
		return cfg.NewCounts(f), nil
	}
	g := s.g
	exit := len(f.Blocks)
	label := func(n int) string {
		if n == exit {
			return "EXIT"
		}
		return f.Blocks[n].Label
	}
	// x[e]: the flow on edge e; in[n] and out[n]: the flow known so far into and out
	// of node n. Scratch space, reused (a Monte Carlo run solves thousands of times).
	sp := scratch.Get().(*[]uint64)
	defer scratch.Put(sp)
	need := len(g.from) + 2*g.nodes
	if cap(*sp) < need {
		*sp = make([]uint64, need)
	}
	buf := (*sp)[:need]
	clear(buf)
	x := buf[:len(g.from)]
	in, out := buf[len(g.from):len(g.from)+g.nodes], buf[len(g.from)+g.nodes:]
	for i, e := range s.chord {
		x[e] = vals[i]
		out[g.from[e]] += vals[i]
		in[g.to[e]] += vals[i]
	}
	// A self-loop counted at its block: its flow, on both sides of its block's
	// equation, plays no part in the solution; it is the block's count less the
	// other in-flow, once that is known (below).
	for _, i := range s.self {
		e := s.chord[i]
		x[e] = 0
		out[g.from[e]] -= vals[i]
		in[g.to[e]] -= vals[i]
	}
	for b, d := range extra {
		out[b] += d
		in[exit] += d
	}
	if p.EntryFromCalls {
		x[len(f.Edges)] = calls // EXIT → entry
		out[exit] += calls
		in[0] += calls
	}
	for _, st := range s.steps {
		n, e := st.node, st.edge
		var v uint64
		if g.to[e] == n { // in-edge: in + v = out
			if out[n] < in[n] {
				return cfg.Counts{}, &flowError{f.Name, label(n)}
			}
			v = out[n] - in[n]
		} else {
			if in[n] < out[n] {
				return cfg.Counts{}, &flowError{f.Name, label(n)}
			}
			v = in[n] - out[n]
		}
		x[e] = v
		out[g.from[e]] += v
		in[g.to[e]] += v
	}
	for n := 0; n < g.nodes; n++ {
		if in[n] != out[n] {
			return cfg.Counts{}, &flowError{f.Name, label(n)}
		}
	}
	for _, i := range s.self {
		e, n := s.chord[i], g.from[s.chord[i]]
		if vals[i] < in[n] {
			return cfg.Counts{}, &flowError{f.Name, label(n)}
		}
		x[e] = vals[i] - in[n]
		in[n] += x[e]
		out[n] += x[e]
	}
	// A block's count is the flow into it (block 0's includes the virtual edge from
	// EXIT): in[], which the loop above has just checked against out[].
	c := cfg.NewCounts(f)
	copy(c.Edges, x[:len(f.Edges)])
	copy(c.Blocks, in[:len(f.Blocks)])
	return c, nil
}

// ReconstructTolerant is Reconstruct for a run that was stopped by a signal or
// killed: an activation may have stopped in a block without a call that may not
// return, where no virtual edge accounts for it. When the plain solution contradicts
// itself, it tries one such stop in each block in turn and keeps the first that makes
// the counts consistent; adjusted reports that it did. Counts near the stopping point
// may still be off by one when the plain solution happens to be consistent.
func (p *FuncPlan) ReconstructTolerant(vals []uint64, calls uint64) (c cfg.Counts, adjusted bool, err error) {
	c, err = p.ReconstructCalls(vals, calls)
	if p.Scheme != Chords || err == nil {
		return c, false, err
	}
	if _, ok := err.(*flowError); !ok {
		return c, false, err
	}
	isExit := map[int]bool{}
	for _, b := range p.Exits {
		isExit[b] = true
	}
	for _, b := range p.Func.Blocks {
		if isExit[b.ID] {
			continue
		}
		c2, err2 := p.reconstructChords(vals, map[int]uint64{b.ID: 1}, calls)
		if err2 == nil && c2.Blocks[b.ID] > 0 {
			return c2, true, nil
		}
	}
	return c, false, err
}
