// This file implements counter promotion: a counter incremented inside a loop is
// kept in a local variable of the function (which the optimiser turns into a
// register) and added to its global slot when control leaves the loop, as LLVM's
// -instrprof-counter-promotion does (InstrProfiling.cpp, PGOCounterPromoter). A
// loop whose only effect is its counter then folds to one addition of its trip
// count, and plain -O2's deletion of dead work, its vectorisation and its register
// allocation survive instrumentation.
//
// The loop a counter is promoted to is the outermost loop around its increment that
// holds no call that may not return (cfg.MayNotReturn: exit() deeper down, longjmp,
// a signal raised in the callee) and has at most maxPromotionExits exits (each exit
// adds the locals to the slots: code size). A counter whose innermost loop has such
// a call stays in memory.
//
// With promotion, counter accesses also carry a TBAA tag of their own type (see
// writer.tbaa): the program's typed stores then do not pin counters in memory.
//
// Exactness. The locals are flushed on every edge that leaves their loop, and no call
// inside it can end the run: every run that ends by returning from main, by exit(),
// by longjmp or by a signal raised inside a call keeps exact counts. What promotion
// gives up is runs that stop without a call: a fault (SIGSEGV, SIGBUS, SIGFPE —
// undefined behaviour, which an optimising compiler assumes away: with the alias
// tags it may sink an increment below the store that faults) or a signal sent by
// another process. Build without promotion (FRAGPROF_PROMOTE=0, or -O0) for exact
// counts of runs that crash.

package instrument

import "github.com/fragprof/fragprof/cfg"

// promotion says which counters of a plan are promoted and where they are flushed.
type promotion struct {
	// blockNest[b] is the promotable loop nest around block b, or nil: where a call
	// of a leaf helper can hand it locals of the caller (helpers.go).
	blockNest []*cfg.Loop
	// local[i] is true when counter i lives in a local while in its loop nest.
	local []bool
	// nest[i] is the outermost loop around counter i's increment (promoted ones).
	nest []*cfg.Loop
	// nests are the loop nests that hold promoted counters, with their counters;
	// byLoop finds them by loop.
	nests  []*promotedNest
	byLoop map[*cfg.Loop]*promotedNest
}

// nestOf returns the promoted nest of loop l, adding one without counters of its
// own if there is none.
func (pr *promotion) nestOf(l *cfg.Loop) *promotedNest {
	n := pr.byLoop[l]
	if n == nil {
		n = &promotedNest{loop: l}
		pr.byLoop[l] = n
		pr.nests = append(pr.nests, n)
	}
	return n
}

type promotedNest struct {
	loop     *cfg.Loop
	counters []int // indices into the plan's counters
	// helpers are the leaf helpers called in the nest, whose counters the nest
	// keeps in a local array of its own while control is in it (helpers.go).
	helpers []*helperLocals
}

// maxPromotionExits bounds the exits of a loop whose counters are promoted.
const maxPromotionExits = 16

// planPromotion decides which counters of p to promote: those whose increment sits
// in a natural loop. Functions that call setjmp are left alone (longjmp would
// restore stale locals).
func planPromotion(p *FuncPlan) *promotion {
	g := p.Func
	pr := &promotion{local: make([]bool, len(p.Counters)), nest: make([]*cfg.Loop, len(p.Counters))}
	if g.ReturnsTwice || len(g.Edges) == 0 {
		return pr
	}
	li := g.FindLoops()
	if len(li.Loops) == 0 {
		return pr
	}
	ok := map[*cfg.Loop]bool{}
	for _, l := range li.Loops {
		ok[l] = len(l.Exits) <= maxPromotionExits
		for _, b := range l.Blocks {
			if b.Traits&cfg.MayNotReturn != 0 {
				ok[l] = false
			}
			// Exception edges and computed jumps: a flush cannot go at the top of a
			// landing pad, nor on an edge whose target's address is taken.
			for _, e := range b.Succs {
				if e.Kind == cfg.Unwind || e.Kind == cfg.Indirect {
					ok[l] = false
				}
			}
		}
	}
	outermost := func(b *cfg.Block) *cfg.Loop {
		if b == nil {
			return nil
		}
		l := li.Innermost[b.ID]
		if l == nil || !ok[l] {
			return nil
		}
		for l.Parent != nil && ok[l.Parent] {
			l = l.Parent
		}
		return l
	}
	pr.blockNest = make([]*cfg.Loop, len(g.Blocks))
	for _, b := range g.Blocks {
		pr.blockNest[b.ID] = outermost(b)
	}
	pr.byLoop = map[*cfg.Loop]*promotedNest{}
	byLoop := pr.byLoop
	for i, c := range p.Counters {
		var l *cfg.Loop
		switch c.Place {
		case AtEntry, AtSelfLoop:
			b := c.Block
			if b < 0 {
				b = g.Edges[c.Edge].To.ID
			}
			if b == 0 {
				continue // the entry block is in no loop of clang's output; never promote calls
			}
			l = outermost(g.Blocks[b])
		case BeforeTerm:
			l = outermost(g.Edges[c.Edge].From)
		case SplitEdge:
			e := g.Edges[c.Edge]
			if lf := outermost(e.From); lf != nil && lf.Contains(e.To) {
				l = lf // both ends in the nest: so is the block that splits the edge
			}
		}
		if l == nil {
			continue
		}
		pr.local[i], pr.nest[i] = true, l
		n := byLoop[l]
		if n == nil {
			n = &promotedNest{loop: l}
			byLoop[l] = n
			pr.nests = append(pr.nests, n)
		}
		n.counters = append(n.counters, i)
	}
	return pr
}
