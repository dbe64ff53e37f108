package timing

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.IsInf(want, 0) && got == want {
		return
	}
	if d := math.Abs(got - want); d > rel*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g (difference %.3g)", what, got, want, d)
	}
}

var (
	pa = Part{Mean: 10, Var: 4, Min: 7, Max: 15, SE2: 0.04, Normal: true}
	pb = Part{Mean: 3, Var: 1, Min: 2, Max: 6, SE2: 0.01, Normal: true}
)

// TestRules checks each rule against values worked out by hand from the formulas of
// the timing guide and the law of total variance.
func TestRules(t *testing.T) {
	s := Seq(pa, pb)
	near(t, "seq mean", s.Mean, 13, 1e-15)
	near(t, "seq var", s.Var, 5, 1e-15)
	near(t, "seq min", s.Min, 9, 1e-15)
	near(t, "seq max", s.Max, 21, 1e-15)
	near(t, "seq se2", s.SE2, 0.05, 1e-15)

	// branch p = 0.25: m = 0.25·10 + 0.75·3 = 4.75; manual σ² = 0.25·4 + 0.75·1 = 1.75;
	// exact adds 0.25·0.75·(10 − 3)² = 9.1875 → 10.9375; SE² = 0.0625·0.04 + 0.5625·0.01.
	for _, f := range []Form{Manual, Exact} {
		b := Branch(0.25, pa, pb, f)
		near(t, "branch mean", b.Mean, 4.75, 1e-15)
		want := 1.75
		if f == Exact {
			want = 10.9375
		}
		near(t, "branch var ("+f.String()+")", b.Var, want, 1e-14)
		near(t, "branch min", b.Min, 2, 0)
		near(t, "branch max", b.Max, 15, 0)
		near(t, "branch se2", b.SE2, 0.0625*0.04+0.5625*0.01, 1e-15)
	}

	// loop p = 0.2: E[K] = 0.25, Var[K] = 0.2/0.64 = 0.3125. m = 10 + 13·0.25 = 13.25;
	// manual σ² = 4 + 5·0.25 = 5.25; exact adds 13²·0.3125 = 52.8125 → 58.0625;
	// t_min = 7, t_max = 15 + 21·0.25 = 20.25; SE² = 1.25²·0.04 + 0.25²·0.01.
	for _, f := range []Form{Manual, Exact} {
		l := Loop(0.2, pa, pb, f)
		near(t, "loop mean", l.Mean, 13.25, 1e-15)
		want := 5.25
		if f == Exact {
			want = 58.0625
		}
		near(t, "loop var ("+f.String()+")", l.Var, want, 1e-13)
		near(t, "loop min", l.Min, 7, 0)
		near(t, "loop max", l.Max, 20.25, 1e-15)
		near(t, "loop se2", l.SE2, 1.5625*0.04+0.0625*0.01, 1e-15)
	}
}

// TestExactFormsBySimulation draws the loop and branch schemes with normal block
// times and checks the exact mean and variance. Tolerance: with n = 200,000 draws
// the standard error of a sample variance is about σ²·√(2/n)·√(1 + κ/2) (κ the
// excess kurtosis, below 10 for these mixtures), i.e. under 1.5 % of σ²; the check
// allows 5 % (more than 3 standard errors). The manual's variance is far outside
// that band for these parameters (it misses 80 % of the loop's variance), so the
// test tells the two forms apart.
func TestExactFormsBySimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(p Part) float64 { return p.Mean + math.Sqrt(p.Var)*rng.NormFloat64() }
	const n = 200000
	check := func(name string, want Part, manual Part, sample func() float64) {
		var s, s2 float64
		for range n {
			x := sample()
			s += x
			s2 += x * x
		}
		m := s / n
		v := (s2 - s*s/n) / (n - 1)
		near(t, name+" mean", m, want.Mean, 0.01)
		if math.Abs(v-want.Var) > 0.05*want.Var {
			t.Errorf("%s: simulated variance %.4g, exact form %.4g", name, v, want.Var)
		}
		if math.Abs(v-manual.Var) < 0.05*v {
			t.Errorf("%s: the manual's variance %.4g should miss the simulated %.4g", name, manual.Var, v)
		}
	}
	check("loop", Loop(0.6, pa, pb, Exact), Loop(0.6, pa, pb, Manual), func() float64 {
		x := draw(pa)
		for rng.Float64() < 0.6 {
			x += draw(pb) + draw(pa)
		}
		return x
	})
	check("branch", Branch(0.3, pa, pb, Exact), Branch(0.3, pa, pb, Manual), func() float64 {
		if rng.Float64() < 0.3 {
			return draw(pa)
		}
		return draw(pb)
	})
}

func TestParseExpr(t *testing.T) {
	for _, tc := range []struct{ in, out, err string }{
		{in: "D", out: "D"},
		{in: " seq( D ,E,F , G ) ", out: "seq(D, E, F, G)"},
		{in: "seq(D, branch(0.3, E, G), F)", out: "seq(D, branch(0.3, E, G), F)"},
		{in: "loop(?, E, seq(G, F))", out: "loop(?, E, seq(G, F))"},
		{in: "branch(1, A, B)", out: "branch(1, A, B)"},
		{in: "loop(1, A, B)", err: "column 6"},
		{in: "branch(1.5, A, B)", err: "probability \"1.5\""},
		{in: "loop(?, A)", err: "loop takes a probability and two schemes, got 1"},
		{in: "sequence(A, B)", err: "unknown operator \"sequence\""},
		{in: "seq(A, B", err: "expected \")\""},
		{in: "seq()", err: "expected a part name"},
		{in: "A B", err: "unexpected \"B\""},
	} {
		e, err := ParseExpr(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseExpr(%q): error %v, want one containing %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("ParseExpr(%q): %v", tc.in, err)
		case tc.err == "" && e.String() != tc.out:
			t.Errorf("ParseExpr(%q) = %s, want %s", tc.in, e, tc.out)
		}
	}
}

// TestEstimate checks the maximum-likelihood probabilities against counts: 40 runs
// of seq(D, branch(?, E, G)) with E 10 times, and of loop(?, E, G) with 40 entries
// and 60 passes through G (E ran 100 times): p̂ = 60/100.
func TestEstimate(t *testing.T) {
	e, _ := ParseExpr("seq(D, branch(?, E, G), loop(?, H, K))")
	est, err := e.Estimate(map[string]float64{"D": 1, "E": 0.25, "G": 0.75, "H": 2.5, "K": 1.5})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for x, p := range est {
		got[x.String()] = p
	}
	near(t, "branch p̂", got["branch(?, E, G)"], 0.25, 1e-15)
	near(t, "loop p̂", got["loop(?, H, K)"], 0.6, 1e-15)
	if _, err := e.Estimate(map[string]float64{"D": 1}); err == nil {
		t.Error("Estimate without the parts' counts succeeded")
	}
	dup, _ := ParseExpr("branch(?, E, E)")
	if _, err := dup.Estimate(map[string]float64{"E": 1}); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("a part used twice: %v", err)
	}
}

// graph builds a cfg.Func from "from>to" edges over blocks 0..n-1.
func graph(n int, edges ...[2]int) *cfg.Func {
	f := &cfg.Func{Name: "g"}
	for i := range n {
		f.AddBlock(string(rune('a' + i)))
	}
	for _, e := range edges {
		f.AddEdge(f.Blocks[e[0]], f.Blocks[e[1]], cfg.Unconditional, "")
	}
	return f
}

// counts gives edge counts per edge and block counts from the entry count and the
// in-edges (block 0: calls).
func counts(f *cfg.Func, calls uint64, edges ...uint64) cfg.Counts {
	c := cfg.NewCounts(f)
	copy(c.Edges, edges)
	c.Blocks[0] = calls
	for _, e := range f.Edges {
		c.Blocks[e.To.ID] += c.Edges[e.ID]
	}
	return c
}

// TestMarkovMatchesReduction composes reducible graphs both ways: the chain's mean
// and variance must equal the exact forms (to rounding: the chain solves a linear
// system, 1e-9 relative), its minimum the rules', and its maximum the rules' when
// there is no loop (+Inf with one).
func TestMarkovMatchesReduction(t *testing.T) {
	zero := Part{Normal: true}
	pc := Part{Mean: 50, Var: 9, Min: 44, Max: 58, SE2: 0.09, Normal: true}
	for _, tc := range []struct {
		name  string
		f     *cfg.Func
		c     func(f *cfg.Func) cfg.Counts
		times []Part
		want  Part
	}{
		{
			name: "sequence a→b→c",
			f:    graph(3, [2]int{0, 1}, [2]int{1, 2}),
			c:    func(f *cfg.Func) cfg.Counts { return counts(f, 10, 10, 10) },
			// The chain adds block by block: seq(seq(a, b), c).
			times: []Part{pa, pb, pc}, want: Seq(Seq(pa, pb), pc),
		},
		{
			name: "branch: entry → a (p = 0.3) | b → exit",
			f:    graph(4, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 3}, [2]int{2, 3}),
			c:    func(f *cfg.Func) cfg.Counts { return counts(f, 100, 30, 70, 30, 70) },
			// The entry and the join take no time.
			times: []Part{zero, pa, pb, zero}, want: Branch(0.3, pa, pb, Exact),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := NewChain(tc.f, tc.c(tc.f), func(b *cfg.Block) Part { return tc.times[b.ID] })
			if err != nil {
				t.Fatal(err)
			}
			r, err := ch.Solve()
			if err != nil {
				t.Fatal(err)
			}
			near(t, "mean", r.Part.Mean, tc.want.Mean, 1e-9)
			near(t, "variance", r.Part.Var, tc.want.Var, 1e-9)
			near(t, "min", r.Part.Min, tc.want.Min, 1e-12)
			near(t, "max", r.Part.Max, tc.want.Max, 1e-12)
			near(t, "se2", r.Part.SE2, tc.want.SE2, 1e-9)
		})
	}

	// The loop of rule 2 as a CFG: entry(0) → A(1); A → B(2) with p, A → exit(3);
	// B → A. 100 calls, K passes in all: A runs 100 + K times.
	t.Run("loop", func(t *testing.T) {
		const p = 0.6
		f := graph(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 1})
		// With A entered 250 times (p = 150/250) and B 150 times.
		c := counts(f, 100, 100, 150, 100, 150)
		ch, err := NewChain(f, c, func(b *cfg.Block) Part { return []Part{zero, pa, pb, zero}[b.ID] })
		if err != nil {
			t.Fatal(err)
		}
		r, err := ch.Solve()
		if err != nil {
			t.Fatal(err)
		}
		want := Loop(p, pa, pb, Exact)
		near(t, "mean", r.Part.Mean, want.Mean, 1e-9)
		near(t, "variance", r.Part.Var, want.Var, 1e-9)
		near(t, "min", r.Part.Min, want.Min, 1e-12)
		if !r.Cyclic || !math.IsInf(r.Part.Max, 1) {
			t.Errorf("loop max = %g, cyclic %v; want +Inf", r.Part.Max, r.Cyclic)
		}
		near(t, "se2", r.Part.SE2, want.SE2, 1e-9)
		// Expected visits per call: the counts over the calls.
		for i, b := range ch.States {
			near(t, "visits of "+b.Label, r.Visits[i], float64(c.Blocks[b.ID])/100, 1e-12)
		}
	})

	// A nest: seq(D, loop(branch(E | G), F)) over a CFG that the rules reduce.
	t.Run("nested", func(t *testing.T) {
		pd, pe, pf, pg := pa, pb, pc, Part{Mean: 7, Var: 2, Min: 5, Max: 9, SE2: 0.02, Normal: true}
		// 0 D → 1 head; 1 → 2 E | 3 G (p = 0.25); 2,3 → 4 latch; 4 → 5 F → 1 (q = 0.5) | 6 exit.
		f := graph(7, [2]int{0, 1}, [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 4}, [2]int{3, 4}, [2]int{4, 5}, [2]int{4, 6}, [2]int{5, 1})
		// 40 calls, the head entered 80 times (40 passes back): E 20, G 60, F 40.
		c := counts(f, 40, 40, 20, 60, 20, 60, 40, 40, 40)
		times := []Part{pd, zero, pe, pg, zero, pf, zero}
		ch, err := NewChain(f, c, func(b *cfg.Block) Part { return times[b.ID] })
		if err != nil {
			t.Fatal(err)
		}
		r, err := ch.Solve()
		if err != nil {
			t.Fatal(err)
		}
		e, _ := ParseExpr("seq(D, loop(0.5, branch(0.25, E, G), F))")
		want, _, err := Reduce(e, map[string]Part{"D": pd, "E": pe, "F": pf, "G": pg}, nil, Exact)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "mean", r.Part.Mean, want.Mean, 1e-9)
		near(t, "variance", r.Part.Var, want.Var, 1e-9)
		near(t, "min", r.Part.Min, want.Min, 1e-12)
		near(t, "se2", r.Part.SE2, want.SE2, 1e-9)
	})
}

// TestMarkovIrreducible composes a graph the rules cannot reduce (a loop with two
// entries) and checks the chain against a simulation of the same walk. The times
// are constant per block, so T is a sum of block times along a random path; with
// 100,000 walks the standard error of the mean is σ/316 and of the variance about
// σ²·√(2(1+κ/2)/n) ≲ 2 %; the test allows 1 % of the mean and 8 % of the variance.
func TestMarkovIrreducible(t *testing.T) {
	// 0 → 1 (0.5) | 2 (0.5); 1 → 2; 2 → 1 (0.4) | 3 exit (0.6); 1 → 3 too.
	// The cycle 1 ⇄ 2 is entered at 1 and at 2: irreducible.
	f := graph(4, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 1}, [2]int{2, 3})
	// Per-block edge probabilities: from 1: to 2 0.7, exit 0.3; from 2: to 1 0.4, exit 0.6.
	probs := map[int][]float64{0: {0.5, 0.5}, 1: {0.7, 0.3}, 2: {0.4, 0.6}}
	times := []float64{1, 10, 100, 0}
	// Counts consistent with those probabilities: solve visits v1 = 0.5 + 0.4 v2,
	// v2 = 0.5 + 0.7 v1 → v1 = 0.7/0.72, v2 = 0.5 + 0.7 v1; scale by 7200 calls.
	v1 := 0.7 / 0.72
	v2 := 0.5 + 0.7*v1
	const calls = 7200.0
	c := cfg.NewCounts(f)
	c.Blocks = []uint64{7200, uint64(math.Round(calls * v1)), uint64(math.Round(calls * v2)), 7200}
	// Rounded to whole counts, the probabilities move by under 1e-4.
	edge := func(share, v float64) uint64 { return uint64(math.Round(calls * v * share)) }
	c.Edges = []uint64{3600, 3600, edge(0.7, v1), edge(0.3, v1), edge(0.4, v2), edge(0.6, v2)}
	ch, err := NewChain(f, c, func(b *cfg.Block) Part { return Part{Mean: times[b.ID], Min: times[b.ID], Max: times[b.ID]} })
	if err != nil {
		t.Fatal(err)
	}
	r, err := ch.Solve()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 100000
	var s, s2 float64
	for range n {
		x, b := 0.0, 0
		for b != 3 {
			x += times[b]
			u, acc := rng.Float64(), 0.0
			for k, e := range f.Blocks[b].Succs {
				acc += probs[b][k]
				if u < acc || k == len(f.Blocks[b].Succs)-1 {
					b = e.To.ID
					break
				}
			}
		}
		s += x
		s2 += x * x
	}
	m := s / n
	v := (s2 - s*s/n) / (n - 1)
	if math.Abs(r.Part.Mean-m) > 0.01*m {
		t.Errorf("chain mean %.5g, simulated %.5g", r.Part.Mean, m)
	}
	if math.Abs(r.Part.Var-v) > 0.08*v {
		t.Errorf("chain variance %.5g, simulated %.5g", r.Part.Var, v)
	}
	if r.Part.Min != 11 { // 0 → 1 → exit: 1 + 10
		t.Errorf("chain min %g, want 11", r.Part.Min)
	}
	if !r.Cyclic {
		t.Error("the chain should see the cycle")
	}
}

func TestMarkovErrors(t *testing.T) {
	f := graph(2, [2]int{0, 1}, [2]int{1, 1})
	// Block 1 loops on itself forever: I − Q is singular.
	c := counts(f, 5, 5, 5)
	c.Blocks[1] = 5
	ch, err := NewChain(f, c, func(*cfg.Block) Part { return Part{} })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Solve(); err == nil || !strings.Contains(err.Error(), "never reach a return") {
		t.Errorf("a block that never returns: %v", err)
	}
	if _, err := NewChain(f, cfg.NewCounts(f), func(*cfg.Block) Part { return Part{} }); err == nil {
		t.Error("a function never called made a chain")
	}
}

// TestNewScheme: a scheme from flags, and each fault named by its flag.
func TestNewScheme(t *testing.T) {
	s, err := NewScheme("seq(a, loop(?, b, a))", "region:all", []string{"a=func:f", "b=region:inner"}, "main")
	if err != nil {
		t.Fatal(err)
	}
	frags := s.Fragments()
	if len(frags) != 4 || frags[0] != s.Total || frags[1] != s.Parts["a"] || frags[2] != s.Parts["b"] || frags[3] != s.Parts["a"] || s.Func != "main" {
		t.Errorf("scheme %+v, fragments %+v", s, frags)
	}
	for _, c := range []struct {
		expr, total string
		parts       []string
		want        string
	}{
		{"seq(a,", "region:all", nil, "--expr"},
		{"seq(a, b)", "nonsense", []string{"a=func:f", "b=func:g"}, "--total"},
		{"seq(a, b)", "region:all", []string{"a=func:f", "b"}, `--part "b"`},
		{"seq(a, b)", "region:all", []string{"a=func:f"}, "no --part b=FRAGMENT"},
		{"seq(a, b)", "program", []string{"a=func:f", "b=func:g"}, "program fragment"},
	} {
		_, err := NewScheme(c.expr, c.total, c.parts, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s / %s / %v: %v, want an error naming %s", c.expr, c.total, c.parts, err, c.want)
		}
	}
}

// TestSchemeOptions: a lab scheme or an expression's, the Markov function given
// or the lab scheme's own, and each fault named by its flag, in order.
func TestSchemeOptions(t *testing.T) {
	s, err := SchemeOptions{Lab: "b", P: 0.3}.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "B" || s.Func != "scheme_B" || s.Total != (Fragment{Kind: RegionFrag, Name: "B"}) || len(s.Fragments()) != 5 {
		t.Errorf("lab scheme b: %+v", s)
	}
	if s, err = (SchemeOptions{Lab: "C", Markov: "run", MarkovSet: true}).Scheme(); err != nil || s.Func != "run" {
		t.Errorf("lab scheme C with --markov run: %+v, %v", s, err)
	}
	if s, err = (SchemeOptions{Lab: "C", MarkovSet: true}).Scheme(); err != nil || s.Func != "" {
		t.Errorf("lab scheme C with --markov '': %+v, %v; want no Markov function", s, err)
	}
	o := SchemeOptions{Expr: "seq(a, b)", Total: "region:all", Parts: []string{"a=func:f", "b=func:g"}, Markov: "main"}
	if s, err = o.Scheme(); err != nil || s.Name != "total" || s.Func != "main" || len(s.Parts) != 2 {
		t.Errorf("expression: %+v, %v", s, err)
	}
	for _, c := range []struct {
		o    SchemeOptions
		want string
	}{
		{SchemeOptions{Lab: "A", Expr: "seq(a)"}, "give --scheme, or --expr with --part and --total, not both"},
		{SchemeOptions{Lab: "A", Parts: []string{"a=func:f"}}, "give --scheme, or --expr with --part and --total, not both"},
		{SchemeOptions{Lab: "D"}, `--scheme: unknown lab scheme "D" (want A, B or C)`},
		{SchemeOptions{Lab: "A", P: 1}, "--p 1: want a probability in [0, 1)"},
		{SchemeOptions{Lab: "A", P: -0.5}, "--p -0.5: want a probability in [0, 1)"},
		{SchemeOptions{Expr: "seq(a)"}, "give --scheme A|B|C, or --expr, --part and --total"},
		{SchemeOptions{Total: "region:all"}, "give --scheme A|B|C, or --expr, --part and --total"},
		{SchemeOptions{Expr: "seq(a, b)", Total: "region:all", Parts: []string{"a=func:f"}}, "--expr names part b, but no --part b=FRAGMENT says what it is"},
	} {
		if _, err := c.o.Scheme(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestLabInputs: the lab program's seed and arguments fill what was not given,
// and only that.
func TestLabInputs(t *testing.T) {
	s, err := LabScheme("C")
	if err != nil {
		t.Fatal(err)
	}
	in, args := s.LabInputs(0.25, nil, nil)
	if !slices.Equal(in, []string{"seed = uniform_int(0, 2147483647)"}) || !slices.Equal(args, []string{"C", "{seed}", "0.25"}) {
		t.Errorf("nothing given: inputs %q, args %q", in, args)
	}
	in, args = s.LabInputs(0.25, []string{"seed = 7"}, nil)
	if !slices.Equal(in, []string{"seed = 7"}) || !slices.Equal(args, []string{"C", "{seed}", "0.25"}) {
		t.Errorf("inputs given: inputs %q, args %q", in, args)
	}
	in, args = s.LabInputs(0.25, nil, []string{"A", "3"})
	if !slices.Equal(in, []string{"seed = uniform_int(0, 2147483647)"}) || !slices.Equal(args, []string{"A", "3"}) {
		t.Errorf("arguments given: inputs %q, args %q", in, args)
	}
}
