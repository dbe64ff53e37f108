package stopping

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/stats"
)

func summaryOf(xs ...uint64) stats.Summary {
	var d stats.CountDist
	for _, x := range xs {
		d.Add(x)
	}
	return d.Summary()
}

func rule(t *testing.T, name string, eps float64, nmin uint64) Rule {
	t.Helper()
	th := stats.DefaultThresholds
	th.Eps, th.NMin = eps, nmin
	r, err := New(name, th)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCLTWorkedExample checks the default rule against values worked by hand.
// Counts 2 4 4 4 6 repeated 8 times (n = 40, x̄ = 4, M2 = 64), judged with one more
// trial at the largest count, 6: n' = 41, δ = 2, x̄' = 4 + 2/41 = 4.048780,
// M2' = 64 + 4·40/41 = 67.902439, s' = √(67.902439/40) = 1.302905;
// M3' = 0 + 8·40·39/41² − 3·2·64/41 = −1.941702, so G1' = −0.0222 and the guard
// holds. γ = 0.95: t_{0.9875, 40} = 2.3289 (Student; gonum), half-width
// 2.3289·1.302905/√41 = 0.47389 about the sample's own mean 4. With ε = 0.5 the
// block converges; with ε = 0.4 it does not, and needs ⌊(t·s'/ε)²⌋ + 1 = ⌊57.5⌋ + 1
// = 58 trials at the current t and s'.
func TestCLTWorkedExample(t *testing.T) {
	var xs []uint64
	for range 8 {
		xs = append(xs, 2, 4, 4, 4, 6)
	}
	s := summaryOf(xs...)
	if w := s.With(6); w.N != 41 || math.Abs(w.Mean-166.0/41) > 1e-12 || math.Abs(w.M2-67.902439) > 1e-6 || math.Abs(w.M3+1.941702) > 1e-6 {
		t.Fatalf("With(6) = %+v, want n 41, mean 4.048780, M2 67.902439, M3 −1.941702", w)
	}
	tq := stats.StudentQuantile(1-0.05/4, 40)
	if math.Abs(tq-2.3289) > 5e-4 {
		t.Fatalf("t_{0.9875,40} = %g, want ≈ 2.3289", tq)
	}
	sd := math.Sqrt(67.902439 / 40)
	hw := tq * sd / math.Sqrt(41)
	if math.Abs(hw-0.47389) > 1e-5 {
		t.Fatalf("half-width %g, want 0.47389", hw)
	}
	d := rule(t, "clt", 0.5, 30).Decide(s)
	if d.State != stats.Converged || math.Abs(d.HalfWidth-hw) > 1e-7 || d.Mean != 4 || d.Lo != 4-d.HalfWidth || d.Hi != 4+d.HalfWidth {
		t.Errorf("ε = 0.5: %v %g ± %g [%g, %g], want converged 4 ± %g", d.State, d.Mean, d.HalfWidth, d.Lo, d.Hi, hw)
	}
	d = rule(t, "clt", 0.4, 30).Decide(s)
	if d.State != stats.Unconverged || d.Need != 58 {
		t.Errorf("ε = 0.4: %v, need %g; want unconverged, need 58", d.State, d.Need)
	}
	// Before n_min nothing is decided.
	if d := rule(t, "clt", 0.5, 40).Decide(s); d.State != stats.Unconverged {
		t.Errorf("n = n_min: %v, want unconverged", d.State)
	}
}

// TestSkewError: E(z) at z = 1.959964, G1 = 1, n = 1: z·φ(z)·(z⁴ + 2z² − 3)/9 with
// φ(1.959964) = 0.05844507, z⁴ = 14.75661, 2z² = 7.682917: 1.959964·0.05844507·
// 19.43953/9 = 0.2474250. So at γ = 0.95 (tolerance α/5 = 0.01) the guard needs
// n ≥ 24.74·G1², Cochran's 25·G1².
func TestSkewError(t *testing.T) {
	if got := SkewError(1.959964, 1, 1); math.Abs(got-0.2474250) > 1e-6 {
		t.Errorf("SkewError = %.7f, want 0.2474250", got)
	}
	if got := SkewError(1.959964, 2, 4); math.Abs(got-0.2474250) > 1e-6 {
		t.Errorf("SkewError(G1 = 2, n = 4) = %.7f, want the same", got)
	}
}

// TestCLTSkewGuard: a block whose counts are 0 in 36 trials and 10 in 4 (n = 40),
// judged with one more 10: p = 5/41, s' = √(41·p(1 − p)·100/40) = 3.3129,
// G1' = (1 − 2p)/√(p(1 − p)) = 2.3105. The t-interval is ±2.3289·3.3129/√41 =
// ±1.2050, and E(t) = 2.3289·φ(2.3289)·G1'²·(t⁴ + 2t² − 3)/(9·41) = 0.0333 >
// α/10 = 0.005: the guard fails, so the block is judged by the confidence sequence
// of "anytime" instead, whose radius at n' = 41 is 0.78945·s' = ±2.6154. With
// ε = 1.2 it is unconverged; it needs the fewer of the guard's trials,
// ⌈E(t)·41/0.005⌉ = 273, and the sequence's, 109. With ε = 5 it converges at ±2.6154.
// The naive rule (the default before) reports ±5 there: z_ε = 5·√40/3.0382 = 10.4,
// where the skewness of the sample cannot matter.
func TestCLTSkewGuard(t *testing.T) {
	var xs []uint64
	for i := range 40 {
		if i < 4 {
			xs = append(xs, 10)
		} else {
			xs = append(xs, 0)
		}
	}
	s := summaryOf(xs...)
	if g := s.With(10).Skewness(); math.Abs(g-(1-10.0/41)/math.Sqrt(5.0/41*36/41)) > 1e-9 {
		t.Fatalf("G1' = %g, want 2.3105", g)
	}
	a := newAnytime(base{alpha: 0.05}, AnytimeTarget)
	cs := 3.3129 * a.Radius(41)
	if math.Abs(a.Radius(41)-0.78945) > 1e-5 {
		t.Fatalf("radius(41) = %g, want 0.78945", a.Radius(41))
	}
	d := rule(t, "clt", 1.2, 30).Decide(s)
	if d.State != stats.Unconverged || math.Abs(d.HalfWidth-cs) > 1e-3 || d.Need != 109 {
		t.Errorf("ε = 1.2: %v ± %g need %g; want unconverged ± %g, needing 109", d.State, d.HalfWidth, d.Need, cs)
	}
	d = rule(t, "clt", 5, 30).Decide(s)
	if d.State != stats.Converged || math.Abs(d.HalfWidth-cs) > 1e-3 {
		t.Errorf("ε = 5: %v ± %g; want converged ± %g", d.State, d.HalfWidth, cs)
	}
	if d := rule(t, "clt-naive", 5, 30).Decide(s); d.State != stats.Converged || d.HalfWidth != 5 {
		t.Errorf("clt-naive, ε = 5: %v ± %g; want converged ± 5", d.State, d.HalfWidth)
	}
	// The bare rule converges at ε = 1.2.
	if d := rule(t, "clt-plain", 1.2, 30).Decide(s); d.State != stats.Converged {
		t.Errorf("clt-plain: %v", d.State)
	}
}

// TestSharedStates: unseen, constant and 0/1 blocks, under every rule of the
// package, at level 1 − α/2.
func TestSharedStates(t *testing.T) {
	for _, name := range []string{"clt", "anytime", "bernstein"} {
		r := rule(t, name, 0.1, 30)
		d := r.Decide(summaryOf(make([]uint64, 31)...))
		if want := 1 - math.Pow(0.025, 1.0/31); d.State != stats.Unseen || math.Abs(d.ProbHi-want) > 1e-12 {
			t.Errorf("%s: zeros: %v bound %g, want unseen bound %g", name, d.State, d.ProbHi, want)
		}
		d = r.Decide(summaryOf(3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3))
		if d.State != stats.Constant || d.Mean != 3 || d.HalfWidth != 0 {
			t.Errorf("%s: threes: %+v", name, d)
		}
		// 0/1 counts, 50 ones in 100: the exact interval at 0.975 (Clopper–Pearson).
		var xs []uint64
		for i := range 100 {
			xs = append(xs, uint64(i%2))
		}
		lo, hi := stats.ClopperPearson(50, 100, 0.975)
		d = r.Decide(summaryOf(xs...))
		if d.Lo != lo || d.Hi != hi || d.State != stats.Unconverged {
			t.Errorf("%s: 50/100 at ε = 0.1: %v [%g, %g], want unconverged [%g, %g]", name, d.State, d.Lo, d.Hi, lo, hi)
		}
	}
}

// TestRareStates: a block that ran in 2 of 1,000 trials is Rare under --ignore-rare
// 0.05 (its Clopper–Pearson upper bound at 0.975 is 0.0083), not under 0.005.
func TestRareStates(t *testing.T) {
	xs := make([]uint64, 1000)
	xs[10], xs[500] = 7, 9
	s := summaryOf(xs...)
	_, hi := stats.ClopperPearson(2, 1000, 0.975)
	for _, tc := range []struct {
		ignore float64
		want   stats.State
	}{{0.05, stats.Rare}, {0.005, stats.Unconverged}} {
		th := stats.DefaultThresholds
		th.Eps, th.IgnoreRare = 0.001, tc.ignore
		th.MaxTrials = 0 // no budget: only --ignore-rare makes it rare
		r, err := New("clt", th)
		if err != nil {
			t.Fatal(err)
		}
		d := r.Decide(s)
		if d.State != tc.want || (d.State == stats.Rare && d.ProbHi != hi) {
			t.Errorf("--ignore-rare %g: %v (bound %g), want %v (bound %g)", tc.ignore, d.State, d.ProbHi, tc.want, hi)
		}
	}
}

// TestAnytimeRadius checks the confidence sequence's radius against the formula
// evaluated by hand at n = t* = 1000, α = 0.05: ℓ = −2 ln 0.05 = 5.991465,
// ρ² = (ℓ + ln(ℓ + 1))/1000 = 0.007936, nρ² + 1 = 8.936, radius
// √(2·8.936/(10⁶·0.007936)·ln(√8.936/0.05)) = 0.095982, that is
// 3.035/√n: 1.55 times the normal 1.96/√n.
func TestAnytimeRadius(t *testing.T) {
	r := rule(t, "anytime", 0.1, 30).(*Anytime)
	got := r.Radius(1000)
	if math.Abs(got-0.095982) > 1e-6 {
		t.Errorf("radius at 1000 = %.6f, want 0.095982", got)
	}
	if !AnytimeValid("anytime") || AnytimeValid("clt") {
		t.Error("AnytimeValid")
	}
}

// TestStudentCoefficient: the Cornish–Fisher expansion used from ν = 1000 on agrees
// with gonum's exact quantile.
func TestStudentCoefficient(t *testing.T) {
	for _, nu := range []uint64{1000, 5000, 1_000_000} {
		for _, g := range []float64{0.9, 0.975, 0.995} {
			want := stats.StudentQuantile((1+g)/2, float64(nu))
			if got := studentCoefficient(g, nu); math.Abs(got-want) > 1e-9 {
				t.Errorf("ν = %d, γ = %g: %.12f, want %.12f", nu, g, got, want)
			}
		}
	}
}

// TestNextCheck: the schedule of checks depends on n only.
func TestNextCheck(t *testing.T) {
	r := rule(t, "clt", 0.1, 30)
	for _, tc := range []struct{ n, want uint64 }{{1, 31}, {30, 31}, {31, 32}, {1030, 1031}, {5000, 5005}} {
		if got := NextCheck(tc.n, r); got != tc.want {
			t.Errorf("NextCheck(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	fs := rule(t, "freqsys-absolute", 0.1, 30)
	if got := NextCheck(100, fs); got != 110 {
		t.Errorf("freqsys NextCheck(100) = %d, want 110", got)
	}
	if _, err := New("nope", stats.DefaultThresholds); err == nil {
		t.Error("unknown rule accepted")
	}
}

// TestNeedFarOut: a precision so fine that the trials needed lie where floats are
// spaced wider than one trial (past 2⁵³; freq --rel-eps 1e-9 gets there) is
// projected, not looped on: the bisection of the anytime radius, which the default
// rule uses while its skewness guard fails, stops at 10⁻⁹ relative.
func TestNeedFarOut(t *testing.T) {
	a := newAnytime(base{alpha: 0.05}, AnytimeTarget)
	eps := 7 * a.Radius(1e17)
	done := make(chan float64, 1)
	go func() { done <- a.need(7, eps, 31) }()
	select {
	case n := <-done:
		if math.Abs(n/1e17-1) > 1e-6 {
			t.Errorf("need = %g, want 1e17", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("need did not return within 10 s")
	}
}

// TestFinitePopulation checks the finite-population correction against the
// worked example above: with N = 100 the half-width t·s'/√n'·√(1 − n'/N) is
// 0.47389·√(1 − 41/100) = 0.36400, so ε = 0.4 converges; with ε = 0.3 the block
// needs n0 = ⌊(t·s'/ε)²⌋ + 1 = ⌊(3.03437/0.3)²⌋ + 1 = 103 trials with replacement,
// n0/(1 + n0/N) = 50.74, so 51 without. At n = N the block is Exact.
func TestFinitePopulation(t *testing.T) {
	var xs []uint64
	for range 8 {
		xs = append(xs, 2, 4, 4, 4, 6)
	}
	s := summaryOf(xs...)
	decide := func(eps float64, pop uint64) stats.Decision {
		th := stats.DefaultThresholds
		th.Eps, th.NMin, th.Population = eps, 30, pop
		r, err := New("clt", th)
		if err != nil {
			t.Fatal(err)
		}
		return r.Decide(s)
	}
	if d := decide(0.4, 0); d.State != stats.Unconverged {
		t.Fatalf("infinite population, ε = 0.4: %v, want unconverged", d.State)
	}
	d := decide(0.4, 100)
	if d.State != stats.Converged || math.Abs(d.HalfWidth-0.36400) > 5e-5 {
		t.Fatalf("N = 100, ε = 0.4: %v ± %.5f, want converged ± 0.36400", d.State, d.HalfWidth)
	}
	if d := decide(0.3, 100); d.State != stats.Unconverged || d.Need != 51 {
		t.Fatalf("N = 100, ε = 0.3: %v needing %v, want unconverged needing 51", d.State, d.Need)
	}
	for _, name := range []string{"clt", "anytime", "bernstein"} {
		th := stats.DefaultThresholds
		th.Eps, th.Population = 1e-9, 40
		r, _ := New(name, th)
		d := r.Decide(s)
		if d.State != stats.Exact || d.HalfWidth != 0 || d.Mean != 4 || d.Lo != 4 || d.Hi != 4 {
			t.Errorf("%s at n = N = 40: %v %v ± %v [%v, %v], want exact 4 ± 0", name, d.State, d.Mean, d.HalfWidth, d.Lo, d.Hi)
		}
	}
	// With units of 16, a population of 40 items leaves 8 trials out of the
	// complete units: the per-trial verdict, Exact, is the one at n = N.
	{
		th := stats.DefaultThresholds
		th.Eps, th.Population = 1e-9, 40
		r, _ := New("clt", th)
		j, err := NewUnits(r, 16)
		if err != nil {
			t.Fatal(err)
		}
		var units []uint64
		for k := 0; k+16 <= len(xs); k += 16 {
			var sum uint64
			for _, x := range xs[k : k+16] {
				sum += x
			}
			units = append(units, sum)
		}
		if d := j.Decide(s, summaryOf(units...)); d.State != stats.Exact || d.N != 40 || d.Mean != 4 || d.HalfWidth != 0 {
			t.Errorf("units of 16 at n = N = 40: %v on %d trials, %v ± %v, want exact 4 ± 0 on 40", d.State, d.N, d.Mean, d.HalfWidth)
		}
	}
	th := stats.DefaultThresholds
	th.Population = 4002
	r, _ := New("clt", th)
	if got := NextCheck(4000, r); got != 4002 {
		t.Errorf("NextCheck(4000) with N = 4002 = %d, want 4002 (the check at n = N)", got)
	}
	if got := NextCheck(5000, r); got != 5005 {
		t.Errorf("NextCheck(5000) with N = 4002 = %d, want 5005 (as without N)", got)
	}
	if FPC(25, 100) != math.Sqrt(0.75) || FPC(25, 0) != 1 || FPC(100, 100) != 1 {
		t.Errorf("FPC(25, 100) = %v, FPC(25, 0) = %v, FPC(100, 100) = %v", FPC(25, 100), FPC(25, 0), FPC(100, 100))
	}
}

// TestFinitePopulationCoverage runs the default rule to its stopping point on
// draws without replacement from finite populations (a skewed trip count; a
// rare class of large counts) and checks that the intervals cover the
// population's mean at least γ − 0.01 of the time. (No rule that judges from the
// sample covers a class it has not drawn: with 8 files of count 400 among 400 of
// counts 10–16, the rule stops before drawing any in about half the runs.)
func TestFinitePopulationCoverage(t *testing.T) {
	const reps = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	worlds := map[string][]uint64{}
	var skewed, rare []uint64
	for i := range 400 {
		skewed = append(skewed, uint64(math.Floor(math.Exp(1+0.8*rng.NormFloat64()))))
		x := uint64(10 + i%7)
		if i%10 == 0 {
			x = 40 // a class of 40 large files among 400
		}
		rare = append(rare, x)
	}
	worlds["skewed"], worlds["rare"] = skewed, rare
	for name, pop := range worlds {
		mean := 0.0
		for _, x := range pop {
			mean += float64(x)
		}
		mean /= float64(len(pop))
		th := stats.DefaultThresholds
		th.RelEps, th.Eps, th.Population = 0.08, 0, uint64(len(pop))
		r, err := New("clt", th)
		if err != nil {
			t.Fatal(err)
		}
		covered, exact, trials := 0, 0, 0
		for range reps {
			dec, n := drawWithoutReplacement(r, pop, rng)
			if math.Abs(dec.Mean-mean) <= dec.HalfWidth+1e-9 {
				covered++
			}
			if dec.State == stats.Exact {
				exact++
			}
			trials += n
		}
		cov := float64(covered) / reps
		t.Logf("%s: N = %d, coverage %.3f, exact in %d of %d runs, mean trials %.0f", name, len(pop), cov, exact, reps, float64(trials)/reps)
		if cov < th.Gamma-0.01 {
			t.Errorf("%s: coverage %.3f < γ − 0.01 = %.2f", name, cov, th.Gamma-0.01)
		}
	}
}

// TestFinitePopulationRules checks the finite-population correction of FreqSys's
// rule and of the Bernstein rule against values worked by hand. The sample is
// 8 × (2, 4, 4, 4, 6): n = 40, x̄ = 4, s² = 64/39, s = 1.2810252, range 4; N = 100.
//
// FreqSys (signed moment, which is 0 here), ε = 0.35, u = 1.959964: (u/ε)²·s² =
// 51.4607 > 40, unconverged without N; with N the condition is 40 > 51.4607·0.6 =
// 30.876, converged, with half-width u·s/√40·√0.6 = 0.307504 and NeedCLT
// ⌈52/(1 + 52/100)⌉ = 35.
//
// Bernstein–Serfling at n = 40 ≤ N/2: δ = 0.05/(40·41), ln(10/δ) = 12.70057,
// ρ = 1 − 39/100 = 0.61, s·√(2·0.61·12.70057/40) + (7/3 + 3/√2)·4·12.70057/40 =
// 0.797302 + 5.657753 = 6.455054; at n = 70 > N/2 with s = 1 and range 2,
// ρ = 0.3·(1 + 1/70), radius 2.104108.
func TestFinitePopulationRules(t *testing.T) {
	var xs []uint64
	for range 8 {
		xs = append(xs, 2, 4, 4, 4, 6)
	}
	s := summaryOf(xs...)
	freqsys := func(pop uint64) stats.Decision {
		th := stats.DefaultThresholds
		th.Eps, th.Population = 0.35, pop
		r, err := New("freqsys-signed", th)
		if err != nil {
			t.Fatal(err)
		}
		return r.Decide(s)
	}
	if d := freqsys(0); d.State != stats.Unconverged || d.NeedCLT != 52 {
		t.Errorf("FreqSys, infinite population: %v needing %v, want unconverged needing 52", d.State, d.NeedCLT)
	}
	d := freqsys(100)
	if d.State != stats.Converged || math.Abs(d.HalfWidth-0.307504) > 1e-6 || d.NeedCLT != 35 {
		t.Errorf("FreqSys, N = 100: %v ± %.6f needing %v, want converged ± 0.307504 needing 35", d.State, d.HalfWidth, d.NeedCLT)
	}
	if d := freqsys(40); d.State != stats.Exact || d.HalfWidth != 0 || d.Mean != 4 {
		t.Errorf("FreqSys at n = N: %v %v ± %v, want exact 4 ± 0", d.State, d.Mean, d.HalfWidth)
	}
	th := stats.DefaultThresholds
	th.Eps, th.Population = 0.5, 100
	r, _ := New("bernstein", th)
	if d := r.Decide(s); math.Abs(d.HalfWidth-6.455054) > 1e-6 || d.State != stats.Unconverged || d.Need > 100 {
		t.Errorf("Bernstein, N = 100: %v ± %.6f needing %v, want unconverged ± 6.455054 needing at most N", d.State, d.HalfWidth, d.Need)
	}
	if got := SerflingRadius(1, 2, 70, 100, 0.05/(70*71)); math.Abs(got-2.104108) > 1e-6 {
		t.Errorf("SerflingRadius past N/2 = %.6f, want 2.104108", got)
	}
}

// drawWithoutReplacement runs rule r as freq does on one simple random sample of
// pop drawn without replacement (a shuffle of it, checked on NextCheck's
// schedule and at n = N, where every rule's decision is Exact) until a decision
// stops it, and returns that decision and the trials drawn.
func drawWithoutReplacement(r Rule, pop []uint64, rng *rand.Rand) (stats.Decision, int) {
	perm := rng.Perm(len(pop))
	var d stats.CountDist
	next := NextCheck(0, r)
	var dec stats.Decision
	for n := 1; n <= len(pop); n++ {
		d.Add(pop[perm[n-1]])
		if uint64(n) < next && n < len(pop) {
			continue
		}
		next = NextCheck(uint64(n), r)
		if dec = r.Decide(d.Summary()); dec.State == stats.Converged || dec.State == stats.Exact {
			return dec, n
		}
	}
	return dec, len(pop)
}

// TestFinitePopulationShare: a block that runs at most once per trial, in 40 of
// 200 draws without replacement from N = 400 members, gets the hypergeometric
// interval of its share at the rule's level 1 − α/2 (stats.Hypergeometric), not
// Clopper–Pearson's, and so converges at ±0.06, where on an infinite population
// the Clopper–Pearson interval (±0.064 and more) does not; its projected need is
// at most N. Below --ignore-rare 0.3 it is Rare with the same bounds.
func TestFinitePopulationShare(t *testing.T) {
	xs := make([]uint64, 200)
	for i := range 40 {
		xs[i] = 1
	}
	s := summaryOf(xs...)
	decide := func(pop uint64, eps, ignore float64) stats.Decision {
		th := stats.DefaultThresholds
		th.Eps, th.Population, th.IgnoreRare = eps, pop, ignore
		r, err := New("clt", th)
		if err != nil {
			t.Fatal(err)
		}
		return r.Decide(s)
	}
	lo, hi := stats.Hypergeometric(40, 200, 400, 0.975)
	clo, chi := stats.ClopperPearson(40, 200, 0.975)
	if hi-lo >= chi-clo || max(hi-0.2, 0.2-lo) > 0.06 || max(chi-0.2, 0.2-clo) <= 0.06 {
		t.Fatalf("hypergeometric [%g, %g], Clopper–Pearson [%g, %g]: want the first within ±0.06, the second not", lo, hi, clo, chi)
	}
	if d := decide(400, 0.06, 0); d.State != stats.Converged || d.Lo != lo || d.Hi != hi {
		t.Errorf("N = 400: %v [%g, %g], want converged [%g, %g]", d.State, d.Lo, d.Hi, lo, hi)
	}
	if d := decide(0, 0.06, 0); d.State != stats.Unconverged || d.Lo != clo || d.Hi != chi {
		t.Errorf("infinite population: %v [%g, %g], want unconverged [%g, %g]", d.State, d.Lo, d.Hi, clo, chi)
	}
	if d := decide(400, 0.01, 0); d.State != stats.Unconverged || d.Need > 400 || d.Need <= 200 {
		t.Errorf("N = 400 at ±0.01: %v needing %v, want unconverged needing in (200, 400]", d.State, d.Need)
	}
	if d := decide(400, 0.01, 0.3); d.State != stats.Rare || d.ProbLo != lo || d.ProbHi != hi {
		t.Errorf("N = 400, --ignore-rare 0.3: %v [%g, %g], want rare [%g, %g]", d.State, d.ProbLo, d.ProbHi, lo, hi)
	}
}
