package instrument

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

// randomFunc builds a random CFG whose every block is reachable from the entry and
// which has at least one exit; some blocks share several edges to one target, as
// switches do.
func randomFunc(r *rand.Rand) *cfg.Func {
	f := &cfg.Func{Name: "rand"}
	n := 2 + r.IntN(12)
	for i := 0; i < n; i++ {
		f.AddBlock(string(rune('a' + i)))
	}
	for i := 0; i < n-1; i++ {
		b := f.Blocks[i]
		// The first successor keeps everything reachable; others are random (never
		// the entry, which has no predecessors).
		f.AddEdge(b, f.Blocks[i+1], cfg.True, "")
		for k := r.IntN(3); k > 0; k-- {
			f.AddEdge(b, f.Blocks[1+r.IntN(n-1)], cfg.Case, "")
		}
	}
	return f
}

// walk runs random executions of f (each a walk from the entry that stops at an exit
// or, as exit() would, anywhere after a budget) and returns the exact counts.
func walk(r *rand.Rand, f *cfg.Func, runs int) cfg.Counts {
	c := cfg.NewCounts(f)
	for ; runs > 0; runs-- {
		b := f.Entry()
		c.Blocks[b.ID]++
		for steps := 0; len(b.Succs) > 0 && steps < 50; steps++ {
			e := b.Succs[r.IntN(len(b.Succs))]
			c.Edges[e.ID]++
			b = e.To
			c.Blocks[b.ID]++
		}
	}
	return c
}

// TestReconstructRandom checks, on random graphs and random executions, that every
// scheme's counters reconstruct the exact counts.
func TestReconstructRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		f := randomFunc(r)
		want := walk(r, f, 1+r.IntN(5))
		if err := f.CheckFlow(want, cfg.Entered); err != nil {
			t.Fatal(err)
		}
		for _, s := range []Scheme{Blocks, Edges} {
			p := PlanFunc(f, s)
			vals := make([]uint64, len(p.Counters))
			for k, c := range p.Counters {
				if c.Block >= 0 {
					vals[k] = want.Blocks[c.Block]
				} else {
					vals[k] = want.Edges[c.Edge]
				}
			}
			got, err := p.Reconstruct(vals)
			if err != nil {
				t.Fatalf("graph %d, %s: %v\n%s", i, s, err, f)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("graph %d, %s: reconstructed %+v, want %+v\n%s", i, s, got, want, f)
			}
		}
	}
}

func TestReconstructRejectsContradiction(t *testing.T) {
	f := &cfg.Func{Name: "f"}
	a, b, c := f.AddBlock("a"), f.AddBlock("b"), f.AddBlock("c")
	f.AddEdge(a, b, cfg.True, "")
	f.AddEdge(a, c, cfg.False, "")
	f.AddEdge(b, c, cfg.Unconditional, "")
	p := PlanFunc(f, Blocks)
	// Block counts a=1, b=1, c=1, then the counted edge into c says 5.
	vals := []uint64{1, 1, 1, 5}
	if len(p.Counters) != 4 {
		t.Fatalf("plan has %d counters, want 4 (3 blocks + 1 edge into the merge)", len(p.Counters))
	}
	if _, err := p.Reconstruct(vals); err == nil || !strings.Contains(err.Error(), "block c entered 1 times") {
		t.Errorf("Reconstruct = %v, want a contradiction error", err)
	}
}

func TestEncodeDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	u := &Unit{Source: "x.c", Scheme: Edges}
	for i := 0; i < 5; i++ {
		f := randomFunc(r)
		f.Blocks[0].Start = cfg.Pos{File: "x.c", Line: 3, Col: 1}
		f.Blocks[0].Lines = []int{3, 4}
		if i%2 == 0 {
			f.Blocks[0].Calls = []string{"g", "_ZN2ns1hEv", "g"}
			f.Blocks[len(f.Blocks)-1].Calls = []string{"exit"}
		}
		u.Funcs = append(u.Funcs, PlanFunc(f, Edges))
	}
	blob, err := u.Encode()
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(blob)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := v.Encode()
	if string(again) != string(blob) {
		t.Errorf("decode/encode changed the blob")
	}
	// The blob is compressed; a blob of fragprof before compression, plain JSON,
	// still reads; a damaged one is refused.
	js, err := inflate(blob)
	if err != nil || len(js) < 2*len(blob) || js[0] != '{' {
		t.Fatalf("inflated blob: %d bytes from %d, %v", len(js), len(blob), err)
	}
	if plain, err := Decode(js); err != nil || plain.NumCounters() != u.NumCounters() {
		t.Errorf("plain JSON blob: %v", err)
	}
	if _, err := Decode(blob[:len(blob)/2]); err == nil || !strings.Contains(err.Error(), "corrupt fragprof metadata") {
		t.Errorf("truncated blob: %v, want corrupt metadata", err)
	}
	if v.NumCounters() != u.NumCounters() {
		t.Errorf("NumCounters %d, want %d", v.NumCounters(), u.NumCounters())
	}
	for i, p := range v.Funcs {
		for j, b := range p.Func.Blocks {
			if want := u.Funcs[i].Func.Blocks[j].Calls; !reflect.DeepEqual(b.Calls, want) {
				t.Errorf("function %d block %d: calls %q, want %q", i, j, b.Calls, want)
			}
		}
	}
	// A blob without calls (written before call edges) decodes with none.
	old := strings.ReplaceAll(string(js), `,"c":["g","_ZN2ns1hEv","g"]`, "")
	old = strings.ReplaceAll(old, `,"c":["exit"]`, "")
	if old == string(js) || strings.Contains(old, `"c":`) {
		t.Fatalf("calls not found in the blob %s", js)
	}
	w, err := Decode([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range w.Funcs {
		for _, b := range p.Func.Blocks {
			if b.Calls != nil {
				t.Errorf("blob without calls: block %s has calls %q", b.Label, b.Calls)
			}
		}
	}
	if _, err := Decode([]byte(`{"v":99}`)); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("Decode of a future version: %v", err)
	}
}
