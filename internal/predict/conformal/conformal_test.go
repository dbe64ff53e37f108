package conformal

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitExact: the widening c, the quantile Q and the run-to-run noise against
// values computed by hand from the package comment's formulas.
func TestFitExact(t *testing.T) {
	// Inside the range eight |e| = 0.1 and one 0.25: a = (8·0.1 + 0.25)/9. At f = 4
	// (L = log₂ f = 2) two |e| = 0.3: c = Σ(|e|/a − 1)·L / Σ L² = 2·(0.3/a − 1)·2 /
	// (2·4) = (0.3/a − 1)/2 ≈ 0.786, and their scores 0.3/(1 + 2c) = a.
	var errs []Error
	for i := 0; i < 8; i++ {
		errs = append(errs, Error{E: 0.1 * float64(1-2*(i%2)), Factor: 1})
	}
	errs = append(errs, Error{E: 0.25, Factor: 1}, Error{E: -0.3, Factor: 4}, Error{E: 0.3, Factor: 4})
	pts := []Point{{Inputs: []float64{10}, Times: []float64{1, 1.1, 0.9, 1.2}, Median: 1.05}}
	iv := Fit(errs, pts)
	a := (8*0.1 + 0.25) / 9
	wantC := (0.3/a - 1) / 2
	if math.Abs(iv.Widen-wantC) > 1e-12 {
		t.Errorf("widening %v, want %v", iv.Widen, wantC)
	}
	// 11 scores: 8 of 0.1, one 0.25, two 0.3/(1 + 2c); k = ⌈0.9·12⌉ − 1 = 10, the
	// largest: 0.25.
	if iv.Scores != 11 || math.Abs(iv.Q-0.25) > 1e-12 {
		t.Errorf("Q = %v from %d scores, want 0.25 from 11", iv.Q, iv.Scores)
	}
	// Noise: |ln(t/1.05)| for 1, 1.1, 0.9, 1.2 — the ⌈0.9·4⌉ = 4th smallest is
	// ln(1.05/0.9).
	if len(iv.Noise) != 1 || math.Abs(iv.Noise[0].Q-math.Log(1.05/0.9)) > 1e-12 {
		t.Errorf("noise %+v, want q = ln(1.05/0.9) = %v", iv.Noise, math.Log(1.05/0.9))
	}
	// h at f = 2: √((Q·(1 + c))² + noise²).
	h := math.Hypot(0.25*(1+wantC), math.Log(1.05/0.9))
	if got := iv.HalfWidth([]float64{12}, 2); math.Abs(got-h) > 1e-12 {
		t.Errorf("half-width at 2× %v, want %v", got, h)
	}
	// No errors beyond the range: c = 0.5 (the default); clamped to [0.1, 2].
	if iv := Fit(errs[:9], nil); iv.Widen != 0.5 {
		t.Errorf("widening without extrapolated errors %v, want 0.5", iv.Widen)
	}
	if iv := Fit(append(errs[:9:9], Error{E: 5, Factor: 2}), nil); iv.Widen != 2 {
		t.Errorf("widening of a huge error %v, want the clamp 2", iv.Widen)
	}
}

// TestCoverage: for exchangeable scores the conformal quantile covers a new one
// with probability ⌈(1 − α)(n + 1)⌉/(n + 1) (Vovk et al.; Barber et al. 2021, Thm.
// 1 for the split case): 14/15 for n = 14, where the rank one lower would give
// 13/15. 40,000 draws of 15 errors (seeded): the share of the 15th inside the
// interval fitted on the 14 others must lie within 4 standard errors (0.005) of
// 14/15; for normal errors and for skewed ones (e^Z − 1: the law does not matter).
func TestCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 29))
	const trials, n = 40000, 14
	want := 14.0 / 15
	for _, draw := range []func() float64{r.NormFloat64, func() float64 { return math.Exp(r.NormFloat64()) - 1 }} {
		in := 0
		errs := make([]Error, n)
		for k := 0; k < trials; k++ {
			for i := range errs {
				errs[i] = Error{E: draw(), Factor: 1}
			}
			iv := Fit(errs, nil)
			if math.Abs(draw()) <= iv.HalfWidth(nil, 1) {
				in++
			}
		}
		cov := float64(in) / trials
		t.Logf("coverage %.4f over %d trials", cov, trials)
		if tol := 4 * math.Sqrt(want*(1-want)/trials); math.Abs(cov-want) > tol {
			t.Errorf("coverage %.4f, want %.4f ± %.4f", cov, want, tol)
		}
	}
}

// TestQuantile checks the rank ⌈0.9(n+1)⌉ against exact values: with 19 scores
// 1…19 it is the 18th; with 9 the 9th (the largest); with 3 the rank 4 is past
// the end and the largest is taken.
func TestQuantile(t *testing.T) {
	seq := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(n - i) // descending: Quantile sorts
		}
		return x
	}
	for _, c := range []struct {
		n    int
		want float64
	}{{19, 18}, {9, 9}, {3, 3}, {1, 1}, {99, 90}} {
		if got := Quantile(seq(c.n)); got != c.want {
			t.Errorf("n = %d: %v, want %v", c.n, got, c.want)
		}
	}
}
