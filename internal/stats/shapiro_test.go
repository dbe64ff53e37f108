package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestShapiroWilkAgainstR checks W and p against R 4.2.2's shapiro.test, which runs
// the same algorithm (AS R94) in C. Reference values, printed by
// sprintf("%.15g", c(r$statistic, r$p.value)) for r <- shapiro.test(x):
func TestShapiroWilkAgainstR(t *testing.T) {
	seq := func(n int, f func(i float64) float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = f(float64(i + 1))
		}
		return xs
	}
	for _, tc := range []struct {
		name string
		x    []float64
		w, p float64
	}{
		// n = 3: exact p-value branch.
		{"c(1,2,4)", []float64{1, 2, 4}, 0.964285714285714, 0.636886845028963},
		{"c(1,2,3)", []float64{1, 2, 3}, 1, 0.999999999999993},
		// 4 ≤ n ≤ 5: one polynomial coefficient; n ≤ 11: the small-sample p-value.
		{"c(2.1,3.4,1.9,5.6)", []float64{2.1, 3.4, 1.9, 5.6}, 0.876031833939984, 0.321964801172321},
		{"c(1,2,3,4,10)", []float64{1, 2, 3, 4, 10}, 0.835788316420997, 0.153612583765517},
		{"c(0.5,1.5,1.7,2.2,3.1,9.4)", []float64{0.5, 1.5, 1.7, 2.2, 3.1, 9.4}, 0.746234601442487, 0.0182951027256103},
		// Shapiro & Wilk's (1965) example, the weights of 11 men: W = 0.79 in the paper.
		{"weights", []float64{148, 154, 158, 160, 161, 162, 166, 170, 182, 195, 236}, 0.788814694835387, 0.00670381405650293},
		// Ties (from a comment in R's swilk.c).
		{"ties", []float64{-1.7, -1, -1, -.73, -.61, -.5, -.24, .45, .62, .81, 1}, 0.942552494006364, 0.550954764437251},
		// n ≥ 12: the large-sample p-value.
		{"n12", []float64{3.1, 2.9, 3.3, 3.0, 2.7, 3.6, 3.2, 2.8, 3.4, 3.05, 2.95, 3.15}, 0.986392849647177, 0.998050193250008},
		{"(1:20)^2", seq(20, func(i float64) float64 { return i * i }), 0.906130628476546, 0.0538095888282039},
		{"log(1:50)", seq(50, math.Log), 0.86331992125341, 3.62236796162786e-05},
		{"sin(1:100)", seq(100, math.Sin), 0.897410505620505, 1.07031176057183e-06},
		{"qnorm(((1:5000)-0.5)/5000)", seq(5000, func(i float64) float64 { return NormalQuantile((i - 0.5) / 5000) }), 0.999988925441143, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// R and this code share the algorithm but not the normal quantile
			// routine or the order of floating-point operations: agreement to 1e-9
			// (relative) leaves room for that and catches any slip in a coefficient,
			// all of which are given to 4–7 digits.
			w, p, err := ShapiroWilk(tc.x)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(w, tc.w, 1e-9, 0) || !closeRel(p, tc.p, 1e-9, 0) {
				t.Errorf("W = %.15g, p = %.15g; R: W = %.15g, p = %.15g", w, p, tc.w, tc.p)
			}
		})
	}
}

func TestShapiroWilkErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		x        []float64
		constant bool
	}{
		{"two", []float64{1, 2}, false},
		{"too many", make([]float64, 5001), false},
		{"constant", []float64{4, 4, 4, 4}, true},
		{"NaN", []float64{1, math.NaN(), 3}, false},
		{"Inf", []float64{1, 2, math.Inf(1)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, p, err := ShapiroWilk(tc.x)
			if err == nil || !math.IsNaN(w) || !math.IsNaN(p) || errors.Is(err, ErrConstant) != tc.constant {
				t.Errorf("ShapiroWilk = %v, %v, %v", w, p, err)
			}
		})
	}
}

// TestShapiroWilkNull checks the p-value's calibration by simulation. Under
// normality p should be Uniform(0, 1) where it matters, in the lower tail: out of
// 4000 samples, each of the deciles below 0.5 should hold 400 ± 3·√(4000·0.1·0.9) =
// 400 ± 57, and the rejections at 1 % and 5 % should be 40 ± 3·√(4000·0.01·0.99) =
// 40 ± 19 and 200 ± 3·√(4000·0.05·0.95) = 200 ± 41. (Royston's fit is coarser above
// p ≈ 0.5: for n = 12 R's shapiro.test puts 14 % of null p-values above 0.9, seen
// with 20,000 replicates; this code does the same, so the upper deciles are not
// checked.) For exponential data of size 100 the test has power ≈ 1: every p-value
// should be below 0.01.
func TestShapiroWilkNull(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 1))
	for _, n := range []int{5, 11, 12, 30, 200} {
		var deciles [10]int
		reject1, reject5 := 0, 0
		x := make([]float64, n)
		for range 4000 {
			for i := range x {
				x[i] = 3 + 2*r.NormFloat64()
			}
			_, p, err := ShapiroWilk(x)
			if err != nil {
				t.Fatal(err)
			}
			deciles[min(int(p*10), 9)]++
			if p < 0.01 {
				reject1++
			}
			if p < 0.05 {
				reject5++
			}
		}
		for i, c := range deciles[:5] {
			if c < 400-57 || c > 400+57 {
				t.Errorf("n = %d: decile %d holds %d of 4000 p-values, want 400 ± 57 (%v)", n, i, c, deciles)
			}
		}
		if reject1 < 40-19 || reject1 > 40+19 || reject5 < 200-41 || reject5 > 200+41 {
			t.Errorf("n = %d: %d and %d rejections at 1 %% and 5 %%, want 40 ± 19 and 200 ± 41", n, reject1, reject5)
		}
	}
	x := make([]float64, 100)
	for k := range 200 {
		for i := range x {
			x[i] = r.ExpFloat64()
		}
		if _, p, _ := ShapiroWilk(x); p >= 0.01 {
			t.Errorf("exponential sample %d: p = %v, want < 0.01", k, p)
		}
	}
}
