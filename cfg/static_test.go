package cfg

import (
	"math"
	"math/rand"
	"testing"
)

// build makes a function from an edge list over n blocks; kinds are inferred: two
// out-edges are true/false, one is unconditional, more are a switch.
func build(n int, edges [][2]int) *Func {
	f := &Func{Name: "f"}
	for i := 0; i < n; i++ {
		f.AddBlock(string(rune('a' + i)))
	}
	out := map[int][]int{}
	for _, e := range edges {
		out[e[0]] = append(out[e[0]], e[1])
	}
	for i := 0; i < n; i++ {
		ts := out[i]
		for k, t := range ts {
			kind := Unconditional
			switch {
			case len(ts) == 2 && k == 0:
				kind = True
			case len(ts) == 2:
				kind = False
			case len(ts) > 2 && k == 0:
				kind = Default
			case len(ts) > 2:
				kind = Case
			}
			f.AddEdge(f.Blocks[i], f.Blocks[t], kind, "")
		}
	}
	return f
}

// bruteDom computes dominators by definition: a dominates b when b is unreachable
// from the entry once a is removed.
func bruteDom(f *Func) [][]bool {
	n := len(f.Blocks)
	reach := func(skip int) []bool {
		seen := make([]bool, n)
		if skip == 0 {
			return seen
		}
		work := []int{0}
		seen[0] = true
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			for _, e := range f.Blocks[b].Succs {
				if t := e.To.ID; t != skip && !seen[t] {
					seen[t] = true
					work = append(work, t)
				}
			}
		}
		return seen
	}
	all := reach(-1)
	dom := make([][]bool, n)
	for a := 0; a < n; a++ {
		dom[a] = make([]bool, n)
		r := reach(a)
		for b := 0; b < n; b++ {
			dom[a][b] = all[b] && !r[b]
		}
	}
	return dom
}

// TestDominatorsRandom checks Cooper–Harvey–Kennedy against the definition on 500
// random graphs (reducible or not, with unreachable blocks).
func TestDominatorsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 500; iter++ {
		n := 2 + rng.Intn(12)
		var edges [][2]int
		for i := 0; i < n; i++ {
			for k := rng.Intn(3); k > 0; k-- {
				if t := rng.Intn(n); t != 0 {
					edges = append(edges, [2]int{i, t})
				}
			}
		}
		f := build(n, edges)
		idom := f.Dominators()
		want := bruteDom(f)
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if got := Dominates(idom, a, b); got != want[a][b] {
					t.Fatalf("graph %v: Dominates(%d, %d) = %v, want %v (idom %v)", edges, a, b, got, want[a][b], idom)
				}
			}
		}
	}
}

func TestPostDominators(t *testing.T) {
	// a → b, c; b → d; c → d; d → e (return). d post-dominates everything before it.
	f := build(5, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}})
	ip := f.PostDominators()
	for _, c := range []struct {
		a, b int
		want bool
	}{{3, 0, true}, {3, 1, true}, {1, 0, false}, {4, 0, true}, {2, 0, false}} {
		if got := Dominates(ip, c.a, c.b); got != c.want {
			t.Errorf("%d post-dominates %d = %v, want %v (ipdom %v)", c.a, c.b, got, c.want, ip)
		}
	}
}

func TestLoops(t *testing.T) {
	// entry → h1; h1 → b1, exit; b1 → h2; h2 → b2, l1; b2 → h2 (inner back edge);
	// l1 → h1 (outer back edge).
	f := build(7, [][2]int{{0, 1}, {1, 2}, {1, 6}, {2, 3}, {3, 4}, {3, 5}, {4, 3}, {5, 1}})
	li := f.FindLoops()
	if len(li.Loops) != 2 {
		t.Fatalf("%d loops, want 2", len(li.Loops))
	}
	outer, inner := li.Loops[0], li.Loops[1]
	if outer.Header.ID != 1 || inner.Header.ID != 3 || inner.Parent != outer || inner.Depth != 2 || outer.Depth != 1 {
		t.Errorf("loops: outer header %d depth %d, inner header %d depth %d parent ok %v",
			outer.Header.ID, outer.Depth, inner.Header.ID, inner.Depth, inner.Parent == outer)
	}
	if len(outer.Blocks) != 5 || len(inner.Blocks) != 2 {
		t.Errorf("bodies: outer %d blocks, inner %d, want 5 and 2", len(outer.Blocks), len(inner.Blocks))
	}
	if li.Innermost[4] != inner || li.Innermost[5] != outer || li.Innermost[6] != nil {
		t.Errorf("innermost loops wrong")
	}
	// An irreducible region: entry → x, y; x → y; y → x. No natural loop, one
	// retreating edge.
	g := build(3, [][2]int{{0, 1}, {0, 2}, {1, 2}, {2, 1}})
	gl := g.FindLoops()
	n := 0
	for _, r := range gl.Retreating {
		if r {
			n++
		}
	}
	if len(gl.Loops) != 0 || n != 1 {
		t.Errorf("irreducible: %d loops and %d retreating edges, want 0 and 1", len(gl.Loops), n)
	}
}

// TestStaticLoop: a loop whose exit test is predicted by the loop-exit heuristic
// alone runs 1/(1−0.8) = 5 times per entry (Wu–Larus propagation), and probabilities
// out of every block sum to 1.
func TestStaticLoop(t *testing.T) {
	// entry → cond; cond → body (true), end (false); body → cond; end returns.
	f := build(4, [][2]int{{0, 1}, {1, 2}, {1, 3}, {2, 1}})
	f.Blocks[3].Traits = Returns
	s := f.EstimateStatic()
	// Two heuristics apply to cond: loop exit (0.8 for staying) and return (0.72
	// against the returning successor): DS gives 0.8·0.72/(0.8·0.72+0.2·0.28).
	p := 0.8 * 0.72 / (0.8*0.72 + 0.2*0.28)
	if math.Abs(s.Prob[1]-p) > 1e-12 {
		t.Errorf("P(cond → body) = %v, want %v (heuristics %v)", s.Prob[1], p, s.Used[1])
	}
	if want := 1 / (1 - p); math.Abs(s.Freq[1]-want) > 1e-9 {
		t.Errorf("freq(cond) = %v, want %v", s.Freq[1], want)
	}
	if math.Abs(s.Freq[3]-1) > 1e-9 {
		t.Errorf("freq(end) = %v, want 1: all that enters leaves", s.Freq[3])
	}
}

// TestStaticHeuristics checks each heuristic's direction on a diamond whose arms
// differ by one trait.
func TestStaticHeuristics(t *testing.T) {
	diamond := func(cond Cond, tTrue, tFalse Traits) *Static {
		f := build(4, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}})
		f.Blocks[0].Cond = cond
		f.Blocks[1].Traits, f.Blocks[2].Traits = tTrue, tFalse
		f.Blocks[3].Traits = Returns
		return f.EstimateStatic()
	}
	cases := []struct {
		name           string
		s              *Static
		want           float64 // P(true edge)
		firstHeuristic Heuristic
	}{
		{"pointer ==", diamond(PtrEq, 0, 0), 0.4, ByPointer},
		{"pointer !=", diamond(PtrNe, 0, 0), 0.6, ByPointer},
		{"x < 0", diamond(LtZero, 0, 0), 0.16, ByOpcode},
		{"x == c", diamond(EqConst, 0, 0), 0.16, ByOpcode},
		{"x != c", diamond(NeConst, 0, 0), 0.84, ByOpcode},
		{"call on true", diamond(0, HasCall, 0), 0.22, ByCall},
		{"store on false", diamond(0, 0, HasStore), 0.55, ByStore},
	}
	for _, c := range cases {
		if math.Abs(c.s.Prob[0]-c.want) > 1e-12 || len(c.s.Used[0]) != 1 || c.s.Used[0][0] != c.firstHeuristic {
			t.Errorf("%s: P(true) = %v by %v, want %v by %v", c.name, c.s.Prob[0], c.s.Used[0], c.want, c.firstHeuristic)
		}
		if c.s.Prob[0]+c.s.Prob[1] != 1 {
			t.Errorf("%s: probabilities sum to %v", c.name, c.s.Prob[0]+c.s.Prob[1])
		}
	}
	// Unreachable: a successor that ends in unreachable is practically never taken,
	// whatever else says.
	f := build(4, [][2]int{{0, 1}, {0, 2}, {2, 3}})
	f.Blocks[0].Cond = NeConst // predicts true
	f.Blocks[1].Traits = HasCall | MayNotReturn | Unreachable
	f.Blocks[3].Traits = Returns
	s := f.EstimateStatic()
	if s.Prob[0] > 1e-5 {
		t.Errorf("P(edge to exit()) = %v, want below 1e-5", s.Prob[0])
	}
}

// TestStaticFlow: on random graphs the estimated frequencies conserve flow at every
// block outside irreducible regions and capped loops: freq(b) = Σ freq(in-edges) /
// (1 − cyclic) for headers and = Σ freq(in-edges) elsewhere; here we check the
// weaker property that all values are finite, non-negative and probabilities sum to
// one out of every block with successors.
func TestStaticFlow(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for iter := 0; iter < 300; iter++ {
		n := 2 + rng.Intn(15)
		var edges [][2]int
		for i := 0; i < n; i++ {
			for k := 1 + rng.Intn(3); k > 0; k-- {
				if t := rng.Intn(n); t != 0 && rng.Intn(4) > 0 {
					edges = append(edges, [2]int{i, t})
				}
			}
		}
		f := build(n, edges)
		s := f.EstimateStatic()
		for _, b := range f.Blocks {
			if math.IsNaN(s.Freq[b.ID]) || math.IsInf(s.Freq[b.ID], 0) || s.Freq[b.ID] < 0 {
				t.Fatalf("graph %v: freq(%d) = %v", edges, b.ID, s.Freq[b.ID])
			}
			if len(b.Succs) == 0 {
				continue
			}
			sum := 0.0
			for _, e := range b.Succs {
				sum += s.Prob[e.ID]
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("graph %v: probabilities out of %d sum to %v", edges, b.ID, sum)
			}
		}
		if s.Freq[0] != 1 {
			t.Fatalf("freq(entry) = %v", s.Freq[0])
		}
	}
}
