package stopping

import (
	"math"
	"testing"

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
// Counts 2 4 4 4 6 repeated 8 times (n = 40): x̄ = 4, M2 = 8·8 = 64, s² = 64/39,
// s = 1.2810252; M3 = 0, so G1 = 0 and the guard holds. γ = 0.95: t_{0.9875, 39} =
// 2.3313 (Student; gonum), half-width 2.3312·1.2810252/√40 = 0.47218.
// With ε = 0.5 the block converges; with ε = 0.4 it does not, and needs
// ⌊(t·s/ε)²⌋ + 1 = ⌊55.7⌋ + 1 trials at the current t and s.
func TestCLTWorkedExample(t *testing.T) {
	var xs []uint64
	for range 8 {
		xs = append(xs, 2, 4, 4, 4, 6)
	}
	s := summaryOf(xs...)
	tq := stats.StudentQuantile(1-0.05/4, 39)
	if math.Abs(tq-2.3313) > 5e-4 {
		t.Fatalf("t_{0.9875,39} = %g, want ≈ 2.3313", tq)
	}
	sd := math.Sqrt(64.0 / 39)
	hw := tq * sd / math.Sqrt(40)
	d := rule(t, "clt", 0.5, 30).Decide(s)
	if d.State != stats.Converged || math.Abs(d.HalfWidth-hw) > 1e-12 || d.Lo != 4-d.HalfWidth || d.Hi != 4+d.HalfWidth {
		t.Errorf("ε = 0.5: %v ± %g [%g, %g], want converged ± %g", d.State, d.HalfWidth, d.Lo, d.Hi, hw)
	}
	d = rule(t, "clt", 0.4, 30).Decide(s)
	if want := math.Floor(math.Pow(tq*sd/0.4, 2)) + 1; d.State != stats.Unconverged || d.Need != want {
		t.Errorf("ε = 0.4: %v, need %g; want unconverged, need %g", d.State, d.Need, want)
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

// TestCLTSkewGuard: a block whose counts are 0 in 36 trials and 10 in 4 (n = 40,
// s = 3.0382, G1 = (1 − 2p)/√(p(1 − p)) = 0.8/0.3 = 2.667 with p = 0.1) has a
// t-interval of ±2.3313·3.0382/√40 = ±1.120, but E(t) = 0.0454 > α/5 = 0.01: the
// guard needs n ≥ E(t)·40/0.01 = 182 trials. With ε = 1.2, z_ε = 2.498 and
// E(z_ε) = 0.042 exceeds 0.01 + 2(Φ(2.498) − Φ(2.331)) = 0.017: unconverged. With
// ε = 5, z_ε = 10.4, where the skewness cannot matter: converged, reported ± 5.
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
	if g := s.Skewness(); math.Abs(g-0.8/0.3) > 1e-12 {
		t.Fatalf("G1 = %g, want %g", g, 0.8/0.3)
	}
	d := rule(t, "clt", 1.2, 30).Decide(s)
	if d.State != stats.Unconverged || d.HalfWidth > 1.2 || d.Need != 182 {
		t.Errorf("ε = 1.2: %v ± %g need %g; want unconverged though ± < 1.2, needing 182", d.State, d.HalfWidth, d.Need)
	}
	d = rule(t, "clt", 5, 30).Decide(s)
	if d.State != stats.Converged || d.HalfWidth != 5 {
		t.Errorf("ε = 5: %v ± %g; want converged ± 5", d.State, d.HalfWidth)
	}
	// The bare rule converges at ε = 2.
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
