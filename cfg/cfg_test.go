package cfg

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"testing"
)

// TestChecksumFormat checks Checksum against its definition, the FNV-1a hash of
// fmt's rendering (which the checksums in stored profiles were computed from), on
// random graphs with every edge kind, and one fixed value so that a change of the
// definition itself cannot go unnoticed.
func TestChecksumFormat(t *testing.T) {
	def := func(f *Func) uint64 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d;", len(f.Blocks))
		for _, e := range f.Edges {
			fmt.Fprintf(h, "%d>%d:%d:%s;", e.From.ID, e.To.ID, e.Kind, e.Case)
		}
		return h.Sum64()
	}
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 200; iter++ {
		n := 1 + rng.Intn(40)
		var edges [][2]int
		for i := 0; i < n; i++ {
			for k := rng.Intn(3); k > 0; k-- {
				edges = append(edges, [2]int{i, rng.Intn(n)})
			}
		}
		f := build(n, edges)
		for _, e := range f.Edges {
			e.Kind = EdgeKind(rng.Intn(int(Case) + 1))
			if e.Kind == Case {
				e.Case = fmt.Sprint(rng.Intn(2000) - 1000)
			}
		}
		if got, want := f.Checksum(), def(f); got != want {
			t.Fatalf("graph %v: Checksum %016x, definition %016x", edges, got, want)
		}
	}
	f := build(3, [][2]int{{0, 1}, {0, 2}, {1, 2}})
	if got, want := f.Checksum(), def(f); got != want || got != 0x17bc89f9f49d9645 {
		t.Errorf("fixed graph: Checksum %016x, definition %016x", got, want)
	}
}

// TestCheckFlowMayNotReturn: when main returned (Conserved), a block is left as often
// as it is entered, except one with a call that may not return, which an exception
// caught further up leaves without its terminator; a block that leaves more often
// than it is entered is an error either way.
func TestCheckFlowMayNotReturn(t *testing.T) {
	f := &Func{Name: "g"}
	entry, then, end := f.AddBlock("entry"), f.AddBlock("then"), f.AddBlock("end")
	f.AddEdge(entry, then, True, "")
	f.AddEdge(entry, end, False, "")
	f.AddEdge(then, end, Unconditional, "")
	c := Counts{Blocks: []uint64{100, 40, 85}, Edges: []uint64{40, 45, 40}}
	if err := f.CheckFlow(c, Conserved); err == nil {
		t.Errorf("entry entered 100 times and left 85 times without a call that may not return: no error")
	}
	entry.Traits |= MayNotReturn
	if err := f.CheckFlow(c, Conserved); err != nil {
		t.Errorf("entry has a call that may not return: %v", err)
	}
	c.Edges[1] = 65
	c.Blocks[2] = 105
	if err := f.CheckFlow(c, Conserved); err == nil {
		t.Errorf("entry entered 100 times and left 105 times: no error")
	}
}
