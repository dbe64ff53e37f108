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
