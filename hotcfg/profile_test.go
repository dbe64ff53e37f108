package hotcfg

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// twoFuncs names the code of the test graphs: main from 0x1000, f from 0x9000.
var twoFuncs = symbolizerFunc(func(a uint64) Symbol {
	if a >= 0x9000 {
		return Symbol{Func: "f", Entry: 0x9000}
	}
	return Symbol{Func: "main", Entry: 0x1000}
})

// roundTrip writes p and parses it back.
func roundTrip(t *testing.T, p *profile.Profile) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestTraceProfile: the exact graph of exactLoop as a profile conserves flow, its
// entry blocks count the functions' calls, and it reads back as written.
func TestTraceProfile(t *testing.T) {
	g := exactLoop()
	g.Symbolize(twoFuncs)
	p := g.Profile(1, nil)
	if err := p.Check(cfg.Conserved); err != nil {
		t.Fatalf("%v\n%s", err, p)
	}
	if p.Rates != nil {
		t.Errorf("an exact graph has rates: %+v", p.Rates)
	}
	// main: entry, the loop (3), the call (1), the return site (1); edges: the
	// entry into the loop (1), the back edge (2), the exit (1), the call to its
	// return site (1). f: entry, its block (1) entered once.
	want := map[string][2][]uint64{
		"main": {{1, 3, 1, 1}, {1, 2, 1, 1}},
		"f":    {{1, 1}, {1}},
	}
	if len(p.Program.Funcs) != len(want) {
		t.Fatalf("%d functions:\n%s", len(p.Program.Funcs), p)
	}
	for i, f := range p.Program.Funcs {
		w := want[f.Name]
		if !reflect.DeepEqual(p.Counts[i].Blocks, w[0]) || !reflect.DeepEqual(p.Counts[i].Edges, w[1]) {
			t.Errorf("%s: blocks %v edges %v, want %v %v", f.Name, p.Counts[i].Blocks, p.Counts[i].Edges, w[0], w[1])
		}
		if calls := p.Counts[i].Calls(); calls != 1 {
			t.Errorf("%s called %d times, want 1", f.Name, calls)
		}
	}
	if main := p.Program.Funcs[0]; main.Blocks[1].Label != "main+0x0" || main.Blocks[1].Addr != 0x1000 || main.Blocks[1].Instrs != 3 {
		t.Errorf("main's loop block: %+v", main.Blocks[1])
	}
	// The call block calls f, once.
	if cb := p.Program.Funcs[0].Blocks[2]; len(cb.Calls) != 1 || cb.Calls[0] != "f" {
		t.Errorf("main's call block calls %q, want f", cb.Calls)
	}
	if got := roundTrip(t, p); got.String() != p.String() || got.Program.Funcs[0].Blocks[2].Calls[0] != "f" {
		t.Errorf("read back:\n%s\nwritten:\n%s", got, p)
	}
}

// TestSampledProfile: a sampled graph as a profile keeps every edge's rate and
// standard error in the rates section, reads back equal, and its counts satisfy
// the flow a profile reader checks although they are observations.
func TestSampledProfile(t *testing.T) {
	b := NewBursts(loopCode)
	b.AddBatch(loopBatch(4))
	b.AddBatch(Batch{PCs: []uint64{0x1000, 0x1002, 0x1004, 0x1006, 0x9000, 0x9001}})
	g := b.Graph()
	g.Symbolize(twoFuncs)
	p := g.Profile(2, nil)
	if p.Runs != 2 || p.Rates == nil || p.Rates.Sampled != g.Sampled || p.Rates.Sampled != 18 {
		t.Fatalf("runs %d, rates %+v", p.Runs, p.Rates)
	}
	// main: the loop block observed 5 times, its back edge 3 and its exit 1: 2
	// entries make up the 5. The back edge's rate is TestBursts's 1/6 ± 1/9.
	main := p.Program.Funcs[0]
	if main.Name != "main" || !reflect.DeepEqual(p.Counts[0].Blocks, []uint64{2, 5, 1}) || !reflect.DeepEqual(p.Counts[0].Edges, []uint64{2, 3, 1}) {
		t.Fatalf("main: %v %v\n%s", p.Counts[0].Blocks, p.Counts[0].Edges, p)
	}
	r := p.Rates.Edges[0]
	if r[0].Estimated || !r[1].Estimated || !r[2].Estimated {
		t.Errorf("estimated: %+v", r)
	}
	if math.Abs(r[1].Rate-1.0/6) > 1e-12 || math.Abs(r[1].StdErr-1.0/9) > 1e-12 {
		t.Errorf("back edge %v ± %v, want 1/6 ± 1/9", r[1].Rate, r[1].StdErr)
	}
	q := roundTrip(t, p)
	if !reflect.DeepEqual(q.Rates, p.Rates) || !reflect.DeepEqual(q.Counts, p.Counts) || q.String() != p.String() {
		t.Errorf("read back:\n%s\nwritten:\n%s", q, p)
	}
	// One function selected keeps its rates; a merge drops them.
	if s := p.Filter(func(f *cfg.Func) bool { return f.Name == "f" }); len(s.Rates.Edges) != 1 || !reflect.DeepEqual(s.Rates.Edges[0], p.Rates.Edges[1]) {
		t.Errorf("filtered rates %+v", s.Rates)
	}
	m, err := profile.Merge([]*profile.Profile{p, q})
	if err != nil || m.Rates != nil {
		t.Fatalf("merge: %v, rates %+v", err, m.Rates)
	}
	for i, f := range m.Program.Funcs {
		if f.Name == "main" && m.Counts[i].Blocks[1] != 10 {
			t.Errorf("merged main: %v, want the loop block twice 5", m.Counts[i].Blocks)
		}
	}
}

// TestInferredProfile: inferred edges keep their mark through the profile.
func TestInferredProfile(t *testing.T) {
	b := NewBursts(loopCode)
	b.Infer = true
	b.AddBatch(loopBatch(4))
	g := b.Graph()
	var inferred int
	for _, e := range g.Edges {
		if e.Inferred {
			inferred++
		}
	}
	p := roundTrip(t, g.Profile(1, nil))
	var got int
	for _, es := range p.Rates.Edges {
		for _, e := range es {
			if e.Inferred {
				got++
			}
		}
	}
	if inferred == 0 || got != inferred {
		t.Errorf("%d inferred edges in the profile, %d in the graph", got, inferred)
	}
}
