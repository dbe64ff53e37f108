// This file computes dominators and post-dominators by the iterative algorithm of
// Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", Software Practice
// and Experience, 2001): iterate over the blocks in reverse postorder, intersecting
// the dominators of the processed predecessors by walking up the tree with postorder
// numbers, until nothing changes. It is as fast as Lengauer–Tarjan on real CFGs.

package cfg

// Dominators returns the immediate dominator of every block: idom[b] is the ID of the
// block that immediately dominates block b, idom[0] = 0 for the entry, and -1 for a
// block not reachable from the entry.
func (f *Func) Dominators() []int {
	n := len(f.Blocks)
	return idoms(n, 0,
		func(b int, yield func(int)) {
			for _, e := range f.Blocks[b].Succs {
				yield(e.To.ID)
			}
		},
		func(b int, yield func(int)) {
			for _, e := range f.Blocks[b].Preds {
				yield(e.From.ID)
			}
		})
}

// PostDominators returns the immediate post-dominator of every block, on the graph
// reversed and completed by a virtual exit node with ID len(f.Blocks) that every block
// without successors leads to. ipdom[b] is that exit for a block whose only
// post-dominator is the exit, and -1 for a block from which no exit can be reached
// (an endless loop). The returned slice has len(f.Blocks)+1 entries; the last is the
// virtual exit itself.
func (f *Func) PostDominators() []int {
	n := len(f.Blocks)
	exit := n
	return idoms(n+1, exit,
		func(b int, yield func(int)) { // successors in the reversed graph
			if b == exit {
				for _, x := range f.Blocks {
					if len(x.Succs) == 0 {
						yield(x.ID)
					}
				}
				return
			}
			for _, e := range f.Blocks[b].Preds {
				yield(e.From.ID)
			}
		},
		func(b int, yield func(int)) { // predecessors in the reversed graph
			if b == exit {
				return
			}
			if len(f.Blocks[b].Succs) == 0 {
				yield(exit)
			}
			for _, e := range f.Blocks[b].Succs {
				yield(e.To.ID)
			}
		})
}

// Dominates reports whether a dominates b in the tree idom (as returned by
// Dominators or PostDominators). Every node dominates itself.
func Dominates(idom []int, a, b int) bool {
	if idom[b] < 0 || idom[a] < 0 {
		return false
	}
	for {
		if a == b {
			return true
		}
		p := idom[b]
		if p == b {
			return false
		}
		b = p
	}
}

// idoms is the Cooper–Harvey–Kennedy algorithm on a graph of n nodes rooted at root.
func idoms(n, root int, succs, preds func(int, func(int))) []int {
	// Postorder by an explicit-stack depth-first search (functions with thousands of
	// blocks must not overflow the goroutine stack).
	post := make([]int, n) // node → postorder number, -1 unreached
	for i := range post {
		post[i] = -1
	}
	var order []int // nodes in postorder
	seen := make([]bool, n)
	type frame struct {
		node int
		next []int
	}
	kids := func(b int) []int {
		var out []int
		succs(b, func(s int) { out = append(out, s) })
		return out
	}
	stack := []frame{{root, kids(root)}}
	seen[root] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.next) == 0 {
			post[top.node] = len(order)
			order = append(order, top.node)
			stack = stack[:len(stack)-1]
			continue
		}
		s := top.next[0]
		top.next = top.next[1:]
		if !seen[s] {
			seen[s] = true
			stack = append(stack, frame{s, kids(s)})
		}
	}
	idom := make([]int, n)
	for i := range idom {
		idom[i] = -1
	}
	idom[root] = root
	intersect := func(a, b int) int {
		for a != b {
			for post[a] < post[b] {
				a = idom[a]
			}
			for post[b] < post[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(order) - 1; i >= 0; i-- { // reverse postorder
			b := order[i]
			if b == root {
				continue
			}
			nd := -1
			preds(b, func(p int) {
				if post[p] < 0 || idom[p] < 0 {
					return
				}
				if nd < 0 {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			})
			if nd >= 0 && idom[b] != nd {
				idom[b] = nd
				changed = true
			}
		}
	}
	return idom
}
