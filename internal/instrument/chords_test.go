package instrument

import (
	"math/rand"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

// randomFunc builds a random CFG over n blocks: every block has 0–3 successors
// (so returns, branches and switches), some blocks call functions that may not
// return, and every block is reachable from the entry.
func randomChordFunc(rng *rand.Rand, n int) *cfg.Func {
	f := &cfg.Func{Name: "r"}
	for i := 0; i < n; i++ {
		f.AddBlock(string(rune('A' + i)))
	}
	for i := 0; i < n; i++ {
		b := f.Blocks[i]
		k := rng.Intn(4)
		if i+1 < n && k == 0 {
			k = 1 // keep most blocks going
		}
		if i == n-1 {
			k = 0 // the end of the spine returns, so every walk can finish
		}
		for j := 0; j < k; j++ {
			t := 1 + rng.Intn(n-1)
			if j == 0 && i+1 < n {
				t = i + 1 // a spine keeps everything reachable
			}
			kind := cfg.Unconditional
			if k == 2 {
				kind = []cfg.EdgeKind{cfg.True, cfg.False}[j]
			} else if k > 2 {
				kind = cfg.Case
			}
			f.AddEdge(b, f.Blocks[t], kind, "")
		}
		if len(b.Succs) == 0 {
			b.Traits |= cfg.Returns
		}
		if rng.Intn(4) == 0 {
			b.Traits |= cfg.HasCall | cfg.MayNotReturn
		}
	}
	return f
}

// simulate runs activations of f and returns the true counts and the counter
// values the plan would read. An activation may stop in a block that has a call
// that may not return (exit() deeper down) with probability stop, and in a plan
// with stop counters (AtStop) in a block that may fault, whose stop counter then
// counts it, as the runtime's stack walk does; stopAnywhere > 0 also lets the last
// activation stop in any block (a fault).
func simulate(rng *rand.Rand, p *FuncPlan, calls int, stop float64, stopAnywhere bool) (cfg.Counts, []uint64) {
	f := p.Func
	truth := cfg.NewCounts(f)
	vals := make([]uint64, len(p.Counters))
	stopSlot := map[int]int{}
	for i, c := range p.Counters {
		if c.Place == AtStop {
			stopSlot[c.Block] = i
		}
	}
	enter := func(b *cfg.Block) {
		truth.Blocks[b.ID]++
		for i, c := range p.Counters {
			if c.Place != AtStop && c.Block == b.ID || c.Place == AtSelfLoop && f.Edges[c.Edge].From == b {
				vals[i]++ // a self-loop's counter counts its block
			}
		}
	}
	take := func(e *cfg.Edge) {
		truth.Edges[e.ID]++
		for i, c := range p.Counters {
			if c.Edge == e.ID && c.Place != AtSelfLoop {
				vals[i]++
			}
		}
	}
	for a := 0; a < calls; a++ {
		b := f.Entry()
		enter(b)
		for steps := 0; ; steps++ {
			if len(b.Succs) == 0 {
				break
			}
			if b.Traits&cfg.MayNotReturn != 0 && rng.Float64() < stop {
				break
			}
			if k, ok := stopSlot[b.ID]; ok && rng.Float64() < stop {
				vals[k]++ // a fault: the walk counts the stop
				break
			}
			if stopAnywhere && a == calls-1 && rng.Intn(8) == 0 {
				break
			}
			e := b.Succs[rng.Intn(len(b.Succs))]
			if steps > 200 {
				e = b.Succs[0] // the spine leads out
			}
			take(e)
			b = e.To
			enter(b)
		}
	}
	return truth, vals
}

// TestChordsExact: on 2000 random CFGs, with activations that end by returning or by
// stopping inside a call that may not return, the chords reconstruct every count
// exactly — as do edges and blocks.
func TestChordsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 2000; iter++ {
		f := randomChordFunc(rng, 2+rng.Intn(14))
		if err := f.Check(); err != nil {
			t.Fatal(err)
		}
		for _, s := range []Scheme{Chords, Edges, Blocks} {
			p := PlanFunc(f, s)
			truth, vals := simulate(rand.New(rand.NewSource(int64(iter))), p, 1+rng.Intn(5), 0.3, false)
			got, err := p.Reconstruct(vals)
			if err != nil {
				t.Fatalf("graph %d, %s: %v\n%s", iter, s, err, f)
			}
			if !reflect.DeepEqual(got, truth) {
				t.Fatalf("graph %d, %s: reconstructed %v, want %v\n%s", iter, s, got, truth, f)
			}
			if err := f.CheckFlow(got, cfg.Entered); err != nil {
				t.Fatalf("graph %d, %s: %v", iter, s, err)
			}
		}
	}
}

// TestChordsCount: the chords scheme places |E| + |exits| + 1 − |V| counters (the
// edges off a spanning tree of V+1 nodes), never more than the edges scheme.
func TestChordsCount(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for iter := 0; iter < 500; iter++ {
		f := randomChordFunc(rng, 2+rng.Intn(20))
		p := PlanFunc(f, Chords)
		want := len(f.Edges) + len(p.Exits) + 1 - len(f.Blocks)
		if len(p.Counters) != want {
			t.Fatalf("graph %d: %d chords, want %d\n%s", iter, len(p.Counters), want, f)
		}
		if e := PlanFunc(f, Edges); len(p.Counters) > len(e.Counters) {
			t.Fatalf("graph %d: %d chords but %d edge counters", iter, len(p.Counters), len(e.Counters))
		}
	}
}

// TestChordsFaults: a build that promotes counters (Plan with Options.Promote) gives
// the blocks that may fault no virtual edge — one chord fewer for each block that
// nothing else makes an exit — and still counts exactly every run that returns or
// stops inside a call that may not return; PlanFunc keeps the edges.
func TestChordsFaults(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	fewer := 0
	for iter := 0; iter < 1000; iter++ {
		f := randomChordFunc(rng, 2+rng.Intn(14))
		onlyFault := 0
		for _, b := range f.Blocks {
			if rng.Intn(3) == 0 {
				b.Traits |= cfg.MayFault
				if len(b.Succs) > 0 && b.Traits&cfg.MayNotReturn == 0 {
					onlyFault++
				}
			}
		}
		exact := PlanFunc(f, Chords)
		cheap := Plan(f, Options{Scheme: Chords, Promote: true}, false, false)
		if got := Plan(f, Options{Scheme: Chords}, false, false); !reflect.DeepEqual(got, exact) {
			t.Fatalf("graph %d: Plan without promotion differs from PlanFunc", iter)
		}
		if len(exact.Exits)-len(cheap.Exits) != onlyFault || len(exact.Counters)-len(cheap.Counters) != onlyFault {
			t.Fatalf("graph %d: %d exits and %d counters with fault edges, %d and %d without; %d blocks only may fault",
				iter, len(exact.Exits), len(exact.Counters), len(cheap.Exits), len(cheap.Counters), onlyFault)
		}
		fewer += onlyFault
		truth, vals := simulate(rand.New(rand.NewSource(int64(iter))), cheap, 1+rng.Intn(5), 0.3, false)
		got, err := cheap.Reconstruct(vals)
		if err != nil || !reflect.DeepEqual(got, truth) {
			t.Fatalf("graph %d: reconstructed %v (%v), want %v\n%s", iter, got, err, truth, f)
		}
	}
	if fewer == 0 {
		t.Fatal("no graph had a block that only may fault")
	}
}

// TestChordsWalked: a build whose runtime walks the stack of a faulting run (Plan
// with walk) gives each block that may fault a stop counter instead of a virtual
// edge in the tree: one counter on a real edge fewer than the build with fault edges
// for each, plus the stop counter, which no code increments; but a block whose fault
// the walk cannot see (cfg.MayFaultInLibrary) keeps its virtual edge. Runs that stop
// in faulting blocks, counted by those stop counters, are reconstructed exactly.
func TestChordsWalked(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	stopped := 0
	for iter := 0; iter < 1000; iter++ {
		f := randomChordFunc(rng, 2+rng.Intn(14))
		walkable := 0
		for _, b := range f.Blocks {
			switch rng.Intn(6) {
			case 0, 1:
				b.Traits |= cfg.MayFault
			case 2:
				b.Traits |= cfg.MayFault | cfg.MayFaultInLibrary
			}
			if len(b.Succs) > 0 && b.Traits&cfg.MayNotReturn == 0 {
				if b.Traits&(cfg.MayFault|cfg.MayFaultInLibrary) == cfg.MayFault {
					walkable++
				}
			}
		}
		walked := Plan(f, Options{Scheme: Chords}, false, true)
		exact := Plan(f, Options{Scheme: Chords}, false, false)
		stops := 0
		for _, c := range walked.Counters {
			if c.Place == AtStop {
				stops++
			}
		}
		if stops != walkable || len(exact.Exits)-len(walked.Exits) != walkable {
			t.Fatalf("graph %d: %d stop counters and %d exits (%d without the walk); %d blocks may fault where the walk sees it", iter, stops, len(walked.Exits), len(exact.Exits), walkable)
		}
		if len(walked.Counters)-stops != len(exact.Counters)-walkable {
			t.Fatalf("graph %d: %d counters on edges with the walk, %d without it, %d fault edges fewer", iter, len(walked.Counters)-stops, len(exact.Counters), walkable)
		}
		truth, vals := simulate(rand.New(rand.NewSource(int64(iter))), walked, 1+rng.Intn(5), 0.3, false)
		for i, c := range walked.Counters {
			if c.Place == AtStop {
				stopped += int(vals[i])
			}
		}
		got, err := walked.Reconstruct(vals)
		if err != nil || !reflect.DeepEqual(got, truth) {
			t.Fatalf("graph %d: reconstructed %v (%v), want %v\n%s", iter, got, err, truth, f)
		}
	}
	if stopped == 0 {
		t.Fatal("no run stopped at a fault")
	}
}

// TestChordsAvoidHotEdges: every cycle needs one counter, so a loop costs one
// increment per iteration under chords; the rest sit on cold edges. The blocks scheme
// pays two per iteration here (cond and body) and the edges scheme two as well.
func TestChordsAvoidHotEdges(t *testing.T) {
	// entry → cond; cond → body | end; body → cond; end returns.
	f := &cfg.Func{Name: "loop"}
	for _, l := range []string{"entry", "cond", "body", "end"} {
		f.AddBlock(l)
	}
	B := f.Blocks
	f.AddEdge(B[0], B[1], cfg.Unconditional, "")
	f.AddEdge(B[1], B[2], cfg.True, "")
	f.AddEdge(B[1], B[3], cfg.False, "")
	f.AddEdge(B[2], B[1], cfg.Unconditional, "")
	B[3].Traits = cfg.Returns
	// The increments of a call that goes round the loop 1000 times.
	truth := cfg.Counts{Blocks: []uint64{1, 1001, 1000, 1}, Edges: []uint64{1, 1000, 1, 1000}}
	increments := func(s Scheme) (n uint64) {
		for _, c := range PlanFunc(f, s).Counters {
			if c.Block >= 0 {
				n += truth.Blocks[c.Block]
			} else {
				n += truth.Edges[c.Edge]
			}
		}
		return n
	}
	if got := increments(Chords); got > 1002 {
		t.Errorf("chords: %d increments for 1000 iterations, want at most 1002", got)
	}
	if b := increments(Blocks); b < 2000 {
		t.Errorf("blocks: %d increments, expected about 2000", b)
	}
}

func TestChordsSetjmpFallsBack(t *testing.T) {
	f := randomChordFunc(rand.New(rand.NewSource(3)), 6)
	f.ReturnsTwice = true
	p := PlanFunc(f, Chords)
	if p.Scheme != Blocks || p.Fallback == "" {
		t.Errorf("setjmp function planned with %s (fallback %q), want blocks with a reason", p.Scheme, p.Fallback)
	}
}

// TestChordsTolerant: when the last activation stops in any block (a fault), a
// tolerant reconstruction still returns counts that conserve flow in the Entered
// sense, and each count is within one of the truth per stopped activation.
func TestChordsTolerant(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for iter := 0; iter < 1000; iter++ {
		f := randomChordFunc(rng, 2+rng.Intn(12))
		p := PlanFunc(f, Chords)
		truth, vals := simulate(rand.New(rand.NewSource(int64(iter))), p, 1+rng.Intn(4), 0.2, true)
		got, _, err := p.ReconstructTolerant(vals, 0)
		if err != nil {
			continue // contradictions the single-stop repair cannot place are errors, not guesses
		}
		if err := f.CheckFlow(got, cfg.Entered); err != nil {
			t.Fatalf("graph %d: %v", iter, err)
		}
		for i := range truth.Blocks {
			if d := int64(got.Blocks[i]) - int64(truth.Blocks[i]); d > 1 || d < -1 {
				t.Fatalf("graph %d: block %d counted %d, truth %d", iter, i, got.Blocks[i], truth.Blocks[i])
			}
		}
	}
}

// TestMetaRoundTrip: a unit's blob decodes to the same plans.
func TestMetaRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	u := &Unit{Source: "x.c", Scheme: Chords}
	for i := 0; i < 5; i++ {
		f := randomChordFunc(rng, 3+i)
		f.ReturnsTwice = i == 2
		u.Funcs = append(u.Funcs, PlanFunc(f, Chords))
	}
	blob, err := u.Encode()
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(blob)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range u.Funcs {
		q := v.Funcs[i]
		if q.Scheme != p.Scheme || q.Fallback != p.Fallback || !reflect.DeepEqual(q.Exits, p.Exits) || !reflect.DeepEqual(q.Counters, p.Counters) {
			t.Errorf("function %d: decoded plan %+v, want %+v", i, q, p)
		}
		if q.Func.Checksum() != p.Func.Checksum() {
			t.Errorf("function %d: graph changed", i)
		}
	}
}

// TestReconstructShared: the same values give the same counts, shared; other values
// their own counts; and goroutines that alternate between two runs' values each get
// the right counts.
func TestReconstructShared(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for iter := 0; iter < 200; iter++ {
		f := randomChordFunc(rng, 2+rng.Intn(14))
		p := PlanFunc(f, Chords)
		truth1, vals1 := simulate(rand.New(rand.NewSource(int64(iter))), p, 1+rng.Intn(5), 0.3, false)
		truth2, vals2 := simulate(rand.New(rand.NewSource(int64(iter+1000))), p, 6, 0.3, false)
		c1, err := p.ReconstructShared(vals1, 0)
		if err != nil || !reflect.DeepEqual(c1, truth1) {
			t.Fatalf("graph %d: %v, %v; want %v", iter, c1, err, truth1)
		}
		c2, _ := p.ReconstructShared(slices.Clone(vals1), 0)
		if &c2.Blocks[0] != &c1.Blocks[0] {
			t.Fatalf("graph %d: the same values solved again, not shared", iter)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for k := range 50 {
					vals, truth := vals1, truth1
					if (g+k)%2 == 1 {
						vals, truth = vals2, truth2
					}
					if c, err := p.ReconstructShared(vals, 0); err != nil || !reflect.DeepEqual(c, truth) {
						t.Errorf("graph %d, goroutine %d: %v, %v; want %v", iter, g, c, err, truth)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}
