// This file estimates edge probabilities and block frequencies without running the
// program, following Wu and Larus ("Static Branch Frequency and Program Profile
// Analysis", MICRO-27, 1994): the branch heuristics of Ball and Larus ("Branch
// Prediction for Free", PLDI 1993) give each two-way branch one or more predictions
// with their measured hit rates; the predictions are combined by the Dempster–Shafer
// rule; block frequencies follow by propagating the probabilities through the loop
// nest, innermost loops first.

package cfg

import (
	"fmt"
	"strings"
)

// A Heuristic is one of the static branch heuristics.
type Heuristic uint8

// The heuristics, with the probability Wu and Larus (1994, Table 1) measured for the
// prediction being right. Unreachable is LLVM's (BranchProbabilityInfo): a successor
// from which every path ends in unreachable (a call of exit() or abort()) is
// practically never taken. The guard heuristic of Ball and Larus is not used: it
// follows a value from the comparison to a use, and fragprof reads IR before mem2reg,
// where every variable lives in memory.
const (
	ByLoopBranch  Heuristic = iota // an edge back to the loop header is taken (0.88)
	ByPointer                      // a pointer is not NULL, two pointers differ (0.60)
	ByCall                         // a successor that calls and does not post-dominate is not taken (0.78)
	ByOpcode                       // x < 0, x <= 0, x == constant, floats equal: false (0.84)
	ByLoopExit                     // inside a loop, the edge that leaves it is not taken (0.80)
	ByReturn                       // a successor that returns is not taken (0.72)
	ByStore                        // a successor that stores and does not post-dominate is not taken (0.55)
	ByLoopHeader                   // a successor that is a loop header or pre-header is taken (0.75)
	ByUnreachable                  // a successor that can only end in unreachable is not taken (1 − 2⁻²⁰)
	numHeuristics
)

var heuristicNames = [...]string{"loop-branch", "pointer", "call", "opcode", "loop-exit", "return", "store", "loop-header", "unreachable"}

// HitRate is the probability that each heuristic's prediction is right.
var HitRate = [numHeuristics]float64{0.88, 0.60, 0.78, 0.84, 0.80, 0.72, 0.55, 0.75, 1 - 1.0/(1<<20)}

func (h Heuristic) String() string {
	if h < numHeuristics {
		return heuristicNames[h]
	}
	return fmt.Sprintf("Heuristic(%d)", h)
}

// Static is a static estimate of a function's profile.
type Static struct {
	// Prob[e] is the probability that edge e is taken when its source block runs;
	// the out-edges of a block with successors sum to 1.
	Prob []float64
	// Freq[b] is the expected number of executions of block b per call (entry = 1).
	Freq []float64
	// EdgeFreq[e] = Freq[source] · Prob[e].
	EdgeFreq []float64
	// Used[b] lists the heuristics that decided the branch ending block b.
	Used [][]Heuristic
	// Loops are the loops the estimate found.
	Loops *Loops
}

// maxCyclic caps the probability of going round a loop once more, so that a loop
// whose every exit is predicted unlikely still gets a finite frequency (Wu and Larus
// use the same device).
const maxCyclic = 1 - 1.0/4096

// EstimateStatic predicts f's edge probabilities and block frequencies.
func (f *Func) EstimateStatic() *Static {
	s := &Static{
		Prob:     make([]float64, len(f.Edges)),
		Freq:     make([]float64, len(f.Blocks)),
		EdgeFreq: make([]float64, len(f.Edges)),
		Used:     make([][]Heuristic, len(f.Blocks)),
		Loops:    f.FindLoops(),
	}
	ipdom := f.PostDominators()
	cold := f.coldBlocks()
	for _, b := range f.Blocks {
		switch len(b.Succs) {
		case 0:
		case 1:
			s.Prob[b.Succs[0].ID] = 1
		case 2:
			s.twoWay(f, b, ipdom, cold)
		default:
			s.multiWay(b, cold)
		}
	}
	s.propagate(f)
	for _, e := range f.Edges {
		s.EdgeFreq[e.ID] = s.Freq[e.From.ID] * s.Prob[e.ID]
	}
	return s
}

// coldBlocks marks the blocks every path from which ends in unreachable.
func (f *Func) coldBlocks() []bool {
	cold := make([]bool, len(f.Blocks))
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			if cold[b.ID] {
				continue
			}
			c := len(b.Succs) == 0 && b.Traits&Unreachable != 0
			if len(b.Succs) > 0 {
				c = true
				for _, e := range b.Succs {
					if !cold[e.To.ID] {
						c = false
						break
					}
				}
			}
			if c {
				cold[b.ID], changed = true, true
			}
		}
	}
	return cold
}

// twoWay predicts a two-way branch: every heuristic that applies gives the
// probability that the first successor is taken, and Dempster–Shafer combines them:
// p ⊕ q = pq / (pq + (1−p)(1−q)).
func (s *Static) twoWay(f *Func, b *Block, ipdom []int, cold []bool) {
	e0, e1 := b.Succs[0], b.Succs[1]
	if e0.Kind == Unwind || e1.Kind == Unwind {
		// An invoke: the call returns normally. LLVM's BranchProbabilityInfo gives the
		// unwind edge the weight 1 against 2²⁰ − 1.
		pu := 1.0 / (1 << 20)
		if e0.Kind == Unwind {
			s.Prob[e0.ID], s.Prob[e1.ID] = pu, 1-pu
		} else {
			s.Prob[e0.ID], s.Prob[e1.ID] = 1-pu, pu
		}
		return
	}
	if e0.To == e1.To {
		s.Prob[e0.ID], s.Prob[e1.ID] = 0.5, 0.5
		return
	}
	p := 0.5
	use := func(h Heuristic, first bool) {
		r := HitRate[h]
		if !first {
			r = 1 - r
		}
		p = p * r / (p*r + (1-p)*(1-r))
		s.Used[b.ID] = append(s.Used[b.ID], h)
	}
	// one applies h when exactly one successor satisfies pred; that one is taken
	// when taken is true. At a loop header, a successor is where the edge leads:
	// past the join of a short-circuit condition that the edge decides
	// (Edge.Threads), so that the first test of `for (…; a && b; …)` is seen to
	// leave the loop when false. The spanning tree then keeps the loop's counter off
	// the second test, where it kept the optimiser from merging the two
	// (bench/kernels/matmul.c: 14 % more instructions than the plain build, against
	// 23 % without: bench/instructions.sh -k). Only at headers: threading the test of a do … while, at the latch,
	// moved hash.c's counter where the loop took a slower shape.
	s0, s1 := e0.To, e1.To
	if l := s.Loops.Innermost[b.ID]; l != nil && l.Header == b {
		if e0.Threads != nil && e0.Threads != s1 {
			s0 = e0.Threads
		}
		if e1.Threads != nil && e1.Threads != s0 {
			s1 = e1.Threads
		}
	}
	one := func(h Heuristic, pred func(*Block) bool, taken bool) {
		a, c := pred(s0), pred(s1)
		if a != c {
			use(h, a == taken)
		}
	}
	li := s.Loops
	postdom := func(x *Block) bool { return Dominates(ipdom, x.ID, b.ID) }
	one(ByUnreachable, func(x *Block) bool { return cold[x.ID] }, false)
	if li.Back[e0.ID] != li.Back[e1.ID] {
		use(ByLoopBranch, li.Back[e0.ID])
	} else if l := li.Innermost[b.ID]; l != nil && !li.Back[e0.ID] {
		one(ByLoopExit, func(x *Block) bool { return !l.Contains(x) }, false)
	}
	switch b.Cond {
	case PtrEq:
		use(ByPointer, false)
	case PtrNe:
		use(ByPointer, true)
	case EqConst, LtZero:
		use(ByOpcode, false)
	case NeConst, GeZero:
		use(ByOpcode, true)
	}
	one(ByCall, func(x *Block) bool { return x.Traits&HasCall != 0 && !postdom(x) }, false)
	one(ByReturn, returns, false)
	one(ByStore, func(x *Block) bool { return x.Traits&HasStore != 0 && !postdom(x) }, false)
	one(ByLoopHeader, func(x *Block) bool { return li.isHeaderOrPreheader(x) && !postdom(x) }, true)
	s.Prob[e0.ID], s.Prob[e1.ID] = p, 1-p
}

// returns reports whether x returns, or passes unconditionally to a block that does.
func returns(x *Block) bool {
	for i := 0; i < 8; i++ {
		if x.Traits&Returns != 0 {
			return true
		}
		if len(x.Succs) != 1 {
			return false
		}
		x = x.Succs[0].To
	}
	return false
}

func (li *Loops) isHeaderOrPreheader(x *Block) bool {
	isHeader := func(b *Block) bool {
		l := li.Innermost[b.ID]
		return l != nil && l.Header == b
	}
	return isHeader(x) || len(x.Succs) == 1 && isHeader(x.Succs[0].To) && !li.Back[x.Succs[0].ID]
}

// multiWay spreads a switch evenly over its edges, as Wu and Larus do, except that
// successors that can only end in unreachable get the Unreachable heuristic's odds.
func (s *Static) multiWay(b *Block, cold []bool) {
	const coldWeight = 1.0 / (1 << 20)
	total := 0.0
	for _, e := range b.Succs {
		if cold[e.To.ID] {
			total += coldWeight
		} else {
			total++
		}
	}
	for _, e := range b.Succs {
		w := 1.0
		if cold[e.To.ID] {
			w = coldWeight
		}
		s.Prob[e.ID] = w / total
	}
}

// propagate computes block frequencies from the probabilities (Wu and Larus 1994,
// Fig. 5): each loop, innermost first, is solved with its header at frequency 1 to
// find the probability of going round once more (the sum of its back-edge
// frequencies); a header's frequency is then its in-flow divided by (1 − that
// probability). The function itself is solved last, from the entry. Retreating edges
// of irreducible regions are ignored, which underestimates such regions.
func (s *Static) propagate(f *Func) {
	li := s.Loops
	cyclic := make([]float64, len(f.Blocks)) // per loop header
	for _, l := range li.InnerFirst() {
		freq := s.solve(f, l.Header, l.in, cyclic)
		back := 0.0
		for _, e := range l.BackEdges {
			back += freq[e.From.ID] * s.Prob[e.ID]
		}
		if back > maxCyclic {
			back = maxCyclic
		}
		cyclic[l.Header.ID] = back
	}
	all := make([]bool, len(f.Blocks))
	for i := range all {
		all[i] = li.Idom[i] >= 0
	}
	copy(s.Freq, s.solve(f, f.Blocks[0], all, cyclic))
}

// solve propagates frequency 1 from head through the blocks in set, in topological
// order of the edges that are neither back nor retreating.
func (s *Static) solve(f *Func, head *Block, set []bool, cyclic []float64) []float64 {
	li := s.Loops
	freq := make([]float64, len(f.Blocks))
	forward := func(e *Edge) bool {
		return set[e.From.ID] && set[e.To.ID] && !li.Back[e.ID] && !li.Retreating[e.ID] && e.To != head
	}
	indeg := make([]int, len(f.Blocks))
	for _, e := range f.Edges {
		if forward(e) {
			indeg[e.To.ID]++
		}
	}
	work := []*Block{head}
	for len(work) > 0 {
		b := work[0]
		work = work[1:]
		if b == head {
			freq[b.ID] = 1
		} else {
			in := 0.0
			for _, e := range b.Preds {
				if forward(e) {
					in += freq[e.From.ID] * s.Prob[e.ID]
				}
			}
			freq[b.ID] = in / (1 - cyclic[b.ID])
		}
		for _, e := range b.Succs {
			if forward(e) {
				if indeg[e.To.ID]--; indeg[e.To.ID] == 0 {
					work = append(work, e.To)
				}
			}
		}
	}
	return freq
}

// Format prints the estimate for people: every block with its frequency and every
// edge with its probability and the heuristics that decided it.
func (s *Static) Format(f *Func) string {
	var sb strings.Builder
	for _, b := range f.Blocks {
		fmt.Fprintf(&sb, "%d %s freq=%.4g\n", b.ID, b.Label, s.Freq[b.ID])
		for _, e := range b.Succs {
			fmt.Fprintf(&sb, "  -> %d p=%.4g\n", e.To.ID, s.Prob[e.ID])
		}
	}
	return sb.String()
}
