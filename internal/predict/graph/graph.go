// This file builds the transition graph.

// Package graph learns the structure of a transition-graph model (docs/methods.md)
// from checkpoint traces: the transition graph — a node per checkpoint, an arc per
// transition seen, loops found with cfg's dominators (graph.go); the execution
// journal — the traces replayed over the graph with the activation counter of every
// node, which gives each transition the state it started from (journal.go); and the
// rule of every node — the decision list that picks the next arc from that state,
// learnt by the metalayer article's Kora-style greedy search over template predicates, with a
// loop's trip count as a regression where no variable decides (rules.go).
//
// The times and data of the transitions are regressions (package regress); package
// predict puts graph, rules and formulas together into a model and runs it.
package graph

import (
	"fmt"
	"sort"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/trace"
)

// The virtual nodes every graph has: the start of a run, before its first
// checkpoint, and its end, after the last.
const (
	Start = 0
	End   = 1
)

// A Graph is the transition graph of a set of traces: one node per checkpoint name
// and two virtual ones (Start, End), one arc per pair of consecutive checkpoints seen.
//
// Invariants (Check): Nodes[i].ID == i; Nodes[Start] has no in-arcs and Nodes[End]
// no out-arcs; Arcs[i].ID == i; Out and In of every node mirror the arcs; the visits
// of a node equal the counts of its in-arcs (Start: the number of runs) and of its
// out-arcs (End: the number of runs).
//
// The graph has its own types rather than cfg.Func's: a checkpoint is not a basic
// block (no instructions, no source range), and arcs are observed transitions, not
// terminator operands, so cfg's edge kinds and terminator order do not apply. cfg's
// dominators and natural loops do, and find the loops here (Loops).
type Graph struct {
	Nodes []*Node
	Arcs  []*Arc
	Runs  int // traces the graph was built from
}

// A Node is a checkpoint.
type Node struct {
	ID     int
	Name   string
	Places []string // "file:line" of the sites that carry the name
	Vars   []string // variables recorded here, in order of first appearance
	Visits int64
	// Header marks a loop header: the target of a back arc. Its activation counter
	// is reset when it is entered from outside the loop.
	Header bool
	Out    []*Arc
	In     []*Arc
}

// An Arc is a transition seen between two checkpoints.
type Arc struct {
	ID     int
	From   *Node
	To     *Node
	Count  int64
	Back   bool // closes a cycle (the metalayer article's "information" arc)
	Resets bool // taking it resets the counter of To (it enters a loop)
}

func (a *Arc) String() string { return a.From.Name + " → " + a.To.Name }

// Self reports whether the arc goes from a node to itself.
func (a *Arc) Self() bool { return a.From == a.To }

// Build builds the transition graph of the main threads of traces.
func Build(traces []*trace.Trace) *Graph {
	g := &Graph{}
	index := map[string]*Node{}
	node := func(name string) *Node {
		if n := index[name]; n != nil {
			return n
		}
		n := &Node{ID: len(g.Nodes), Name: name}
		g.Nodes = append(g.Nodes, n)
		index[name] = n
		return n
	}
	node("START")
	node("END")
	arcs := map[[2]int]*Arc{}
	arc := func(from, to *Node) *Arc {
		k := [2]int{from.ID, to.ID}
		if a := arcs[k]; a != nil {
			return a
		}
		a := &Arc{From: from, To: to}
		arcs[k] = a
		return a
	}
	for _, t := range traces {
		th := t.Main()
		if th == nil || th.Len() == 0 {
			continue
		}
		g.Runs++
		// Nodes of the sites, with their variables.
		siteNode := make([]*Node, len(t.Sites))
		for i, s := range t.Sites {
			n := node(s.Name)
			siteNode[i] = n
			place := fmt.Sprintf("%s:%d", s.File, s.Line)
			if !contains(n.Places, place) {
				n.Places = append(n.Places, place)
			}
			for _, v := range s.Vars {
				if !contains(n.Vars, v.Name) {
					n.Vars = append(n.Vars, v.Name)
				}
			}
		}
		prev := g.Nodes[Start]
		prev.Visits++
		for k := 0; k < th.Len(); k++ {
			n := siteNode[th.Site[k]]
			arc(prev, n).Count++
			n.Visits++
			prev = n
		}
		arc(prev, g.Nodes[End]).Count++
		g.Nodes[End].Visits++
	}
	// Arcs in a stable order: by source, then target.
	for _, a := range arcs {
		g.Arcs = append(g.Arcs, a)
	}
	sort.Slice(g.Arcs, func(i, j int) bool {
		a, b := g.Arcs[i], g.Arcs[j]
		if a.From.ID != b.From.ID {
			return a.From.ID < b.From.ID
		}
		return a.To.ID < b.To.ID
	})
	for i, a := range g.Arcs {
		a.ID = i
		a.From.Out = append(a.From.Out, a)
		a.To.In = append(a.To.In, a)
	}
	g.findLoops()
	return g
}

// findLoops marks back arcs, loop headers and the arcs that reset a header's counter,
// with cfg's dominator-based natural loops on a mirror of the graph. A retreating arc
// of an irreducible region is a back arc too (it closes a cycle), but enters no
// natural loop, so its target's counter is never reset by it.
func (g *Graph) findLoops() {
	f := &cfg.Func{Name: "transition graph"}
	for _, n := range g.Nodes {
		f.AddBlock(n.Name)
	}
	for _, a := range g.Arcs {
		f.AddEdge(f.Blocks[a.From.ID], f.Blocks[a.To.ID], cfg.Unconditional, "")
	}
	li := f.FindLoops()
	for _, a := range g.Arcs {
		if li.Back[a.ID] {
			a.Back = true
			a.To.Header = true
		}
		if li.Retreating[a.ID] {
			a.Back = true
		}
	}
	for _, a := range g.Arcs {
		a.Resets = a.To.Header && !a.Back && !li.Back[a.ID]
	}
}

// Check verifies the invariants stated on Graph.
func (g *Graph) Check() error {
	for i, n := range g.Nodes {
		if n.ID != i {
			return fmt.Errorf("predict: node %s has ID %d at index %d", n.Name, n.ID, i)
		}
	}
	if len(g.Nodes) < 2 || len(g.Nodes[Start].In) > 0 || len(g.Nodes[End].Out) > 0 {
		return fmt.Errorf("predict: START must have no in-arcs and END no out-arcs")
	}
	for i, a := range g.Arcs {
		if a.ID != i {
			return fmt.Errorf("predict: arc %s has ID %d at index %d", a, a.ID, i)
		}
		if !containsArc(a.From.Out, a) || !containsArc(a.To.In, a) {
			return fmt.Errorf("predict: arc %s missing from its nodes' lists", a)
		}
	}
	for _, n := range g.Nodes {
		var in, out int64
		for _, a := range n.In {
			in += a.Count
		}
		for _, a := range n.Out {
			out += a.Count
		}
		if n.ID != Start && in != n.Visits {
			return fmt.Errorf("predict: node %s visited %d times, entered %d times", n.Name, n.Visits, in)
		}
		if n.ID != End && out != n.Visits {
			return fmt.Errorf("predict: node %s visited %d times, left %d times", n.Name, n.Visits, out)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsArc(list []*Arc, a *Arc) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}
