// This file builds the call stacks of the pprof export from the profile's call edges,
// as gprof does: a function's counts are shared among its callers in proportion to
// the calls each made (the context-insensitive assumption: Graham, Kessler and
// McKusick, "gprof: a call graph execution profiler", SIGPLAN '82).

package report

import (
	"math/bits"
	"sort"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// The bounds of the stacks: at most maxCallers callers above a block, and a
// function's callers are followed only as deep as gives at most maxStacks stacks (but
// always its direct callers).
const (
	maxCallers = 6
	maxStacks  = 64
)

// A callSite is the calls of one block to one function of the profile.
type callSite struct {
	fn, block int    // the caller: index in Program.Funcs, block ID
	calls     uint64 // calls made (cfg.CallEdge.Count)
}

// A callers is the profile's call graph: per function, the blocks that call it and
// how many of its entries no known call accounts for.
type callers struct {
	sites  [][]callSite // per callee function index
	unseen []uint64     // per function: entries − known calls, when positive
	trees  [][]*ctxNode // per function: its caller tree (nil: no known caller)
}

// A ctxNode is one call site on a path up a function's callers; site nil ends the
// path (the entries that no known call accounts for: main, a callback, an indirect
// call).
type ctxNode struct {
	site *callSite
	w    uint64 // the calls (or entries) it stands for
	kids []*ctxNode
}

// newCallers resolves p's call edges to its functions. A callee is the function of
// that name; among several (static functions of different files), the one in the
// caller's file; a callee that is not in the profile (a library function) or stays
// ambiguous is left out.
func newCallers(p *profile.Profile) *callers {
	byName := map[string][]int{}
	for i, f := range p.Program.Funcs {
		byName[f.Name] = append(byName[f.Name], i)
	}
	resolve := func(caller *cfg.Func, name string) int {
		cands := byName[name]
		if len(cands) == 1 {
			return cands[0]
		}
		found := -1
		for _, i := range cands {
			if p.Program.Funcs[i].File == caller.File {
				if found >= 0 {
					return -1
				}
				found = i
			}
		}
		return found
	}
	n := len(p.Program.Funcs)
	cs := &callers{sites: make([][]callSite, n), unseen: make([]uint64, n), trees: make([][]*ctxNode, n)}
	for i, f := range p.Program.Funcs {
		for _, e := range f.CallEdges() {
			g := resolve(f, e.Callee)
			if calls := e.Count(p.Counts[i]); g >= 0 && calls > 0 {
				cs.sites[g] = append(cs.sites[g], callSite{fn: i, block: e.Block.ID, calls: calls})
			}
		}
	}
	for g := range cs.sites {
		var known uint64
		for _, s := range cs.sites[g] {
			known = satAdd(known, s.calls)
		}
		if entries := p.Counts[g].Calls(); entries > known {
			cs.unseen[g] = entries - known
		}
	}
	for g := range cs.trees {
		cs.trees[g] = cs.tree(g)
	}
	return cs
}

// tree returns the caller tree of function g: the deepest one up to maxCallers
// levels with at most maxStacks paths, or the direct callers alone.
func (cs *callers) tree(g int) []*ctxNode {
	var best []*ctxNode
	for depth := 1; depth <= maxCallers; depth++ {
		budget := maxStacks
		if depth == 1 {
			budget = int(^uint(0) >> 1)
		}
		cut := false
		onPath := map[int]bool{g: true}
		kids := cs.expand(g, onPath, depth, &budget, &cut)
		if budget < 0 {
			break
		}
		best = kids
		if !cut {
			break // deeper trees are the same
		}
	}
	return best
}

// expand returns the callers of function h not on the path, each with its own
// callers up to depth levels, and a node ending the path for h's entries that no
// known call accounts for. A caller already on the path (recursion) is left out, so
// that its share goes to the callers from outside the cycle, as gprof's cycles do.
// budget counts down the paths; cut reports callers left out at the depth limit.
func (cs *callers) expand(h int, onPath map[int]bool, depth int, budget *int, cut *bool) []*ctxNode {
	var kids []*ctxNode
	for i := range cs.sites[h] {
		s := &cs.sites[h][i]
		if onPath[s.fn] {
			continue
		}
		if depth == 0 {
			*cut = true
			return nil
		}
		n := &ctxNode{site: s, w: s.calls}
		onPath[s.fn] = true
		n.kids = cs.expand(s.fn, onPath, depth-1, budget, cut)
		onPath[s.fn] = false
		if len(n.kids) == 0 {
			*budget--
		}
		if *budget < 0 {
			return nil
		}
		kids = append(kids, n)
	}
	if len(kids) > 0 && cs.unseen[h] > 0 {
		kids = append(kids, &ctxNode{w: cs.unseen[h]})
		*budget--
	}
	return kids
}

// split calls emit for every path of the tree kids with its share of n, the shares
// apportioned at every level in proportion to the nodes' weights (apportion), so
// that they add up to n exactly. stack is the path so far, innermost first.
func split(n uint64, kids []*ctxNode, stack []callSite, emit func(uint64, []callSite)) {
	if len(kids) == 0 {
		emit(n, stack)
		return
	}
	w := make([]uint64, len(kids))
	for i, k := range kids {
		w[i] = k.w
	}
	for i, part := range apportion(n, w) {
		switch {
		case part == 0:
		case kids[i].site == nil:
			emit(part, stack)
		default:
			split(part, kids[i].kids, append(stack[:len(stack):len(stack)], *kids[i].site), emit)
		}
	}
}

// apportion splits n into parts proportional to the weights w (not all zero) by the
// largest remainder method: each part is ⌊n·wᵢ/W⌋, and the units left over go to the
// largest remainders (the first of equal ones). The parts add up to n. Weights whose
// sum overflows 64 bits are halved until it does not.
func apportion(n uint64, w []uint64) []uint64 {
	var total uint64
	for shift := 0; ; shift++ {
		total = 0
		over := false
		for _, x := range w {
			var c uint64
			total, c = bits.Add64(total, x>>shift, 0)
			over = over || c != 0
		}
		if !over {
			if shift > 0 {
				for i := range w {
					w[i] >>= shift
				}
			}
			break
		}
	}
	parts := make([]uint64, len(w))
	if total == 0 {
		return parts
	}
	rems := make([]uint64, len(w))
	left := n
	for i, x := range w {
		hi, lo := bits.Mul64(n, x)
		parts[i], rems[i] = bits.Div64(hi, lo, total)
		left -= parts[i]
	}
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rems[order[a]] > rems[order[b]] })
	for _, i := range order[:left] {
		parts[i]++
	}
	return parts
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return ^uint64(0)
	}
	return s
}
