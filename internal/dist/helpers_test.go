// This file holds helpers shared by the package's tests.

package dist

import (
	"math"
	"testing"
)

// mustParse parses text or fails the test.
func mustParse(t testing.TB, text string) *Model {
	t.Helper()
	m, err := ParseOptions(text, Options{Dir: "testdata"})
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return m
}

// drawN draws trials 0..n-1 of text's first input under seed and returns
// its values as float64: an array's or a string's contribute all their
// elements (a string's as byte values).
func drawN(t testing.TB, text string, seed uint64, n int) []float64 {
	t.Helper()
	return drawUnits(t, text, seed, n, 0)
}

// drawUnits is drawN with the trials drawn as Latin hypercube units of unit
// trials (Sample.SetUnit).
func drawUnits(t testing.TB, text string, seed uint64, n, unit int) []float64 {
	t.Helper()
	m := mustParse(t, text)
	s := m.NewSample()
	s.SetUnit(unit)
	var xs []float64
	for i := range n {
		if err := m.DrawInto(s, seed, uint64(i)); err != nil {
			t.Fatal(err)
		}
		v := s.Values[0]
		switch v.Kind {
		case KindInt, KindFloat:
			xs = append(xs, v.Number())
		case KindIntArray:
			for _, x := range v.Ints {
				xs = append(xs, float64(x))
			}
		case KindFloatArray:
			xs = append(xs, v.Floats...)
		case KindString:
			for _, b := range v.Bytes {
				xs = append(xs, float64(b))
			}
		}
	}
	return xs
}

// moments are the mean, variance and fourth central moment of a
// distribution.
type moments struct{ mean, variance, mu4 float64 }

// checkMoments checks the sample mean and variance of xs against want.
//
// Tolerances. For n independent draws the sample mean has standard error
// σ/√n and, by the CLT, is within 5 standard errors of the mean except
// with probability 5.7e-7. The unbiased sample variance s² has variance
// (μ4 − σ⁴(n−3)/(n−1))/n ≈ (μ4 − σ⁴)/n, so s² is within
// 5·√((μ4 − σ⁴)/n) of σ² with the same probability (n ≥ 10^4 here, where
// the normal approximation of s² is good for the light-tailed
// distributions tested). The seeds are fixed, so the tests are
// deterministic; the bounds say that a correct sampler passes for all but
// a negligible fraction of seeds, while one whose mean is off by 2% of σ
// (5 SE at n = 10^5) fails.
func checkMoments(t *testing.T, name string, xs []float64, want moments) {
	t.Helper()
	n := float64(len(xs))
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= n
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	s2 := ss / (n - 1)
	if want.variance == 0 {
		if mean != want.mean || s2 != 0 {
			t.Errorf("%s: mean %g, variance %g; want constant %g", name, mean, s2, want.mean)
		}
		return
	}
	seMean := math.Sqrt(want.variance / n)
	if d := math.Abs(mean - want.mean); d > 5*seMean {
		t.Errorf("%s: mean %.6g, want %.6g ± %.3g (5 SE); off by %.1f SE", name, mean, want.mean, 5*seMean, d/seMean)
	}
	seVar := math.Sqrt((want.mu4 - want.variance*want.variance) / n)
	if d := math.Abs(s2 - want.variance); d > 5*seVar {
		t.Errorf("%s: variance %.6g, want %.6g ± %.3g (5 SE); off by %.1f SE", name, s2, want.variance, 5*seVar, d/seVar)
	}
}

// discreteMoments returns the moments of the distribution with
// probabilities pmf(k) on the integers lo..hi, normalized over that range
// (so it gives the moments of a restriction, exactly).
func discreteMoments(pmf func(k float64) float64, lo, hi float64) moments {
	var w, m1 float64
	for k := lo; k <= hi; k++ {
		p := pmf(k)
		w += p
		m1 += k * p
	}
	mean := m1 / w
	var m2, m4 float64
	for k := lo; k <= hi; k++ {
		p := pmf(k) / w
		d := k - mean
		m2 += d * d * p
		m4 += d * d * d * d * p
	}
	return moments{mean, m2, m4}
}

// finiteMoments returns the moments of the distribution of vals with
// weights ws (not necessarily normalized).
func finiteMoments(vals, ws []float64) moments {
	var w, m1 float64
	for i, v := range vals {
		w += ws[i]
		m1 += v * ws[i]
	}
	mean := m1 / w
	var m2, m4 float64
	for i, v := range vals {
		d := v - mean
		m2 += d * d * ws[i] / w
		m4 += d * d * d * d * ws[i] / w
	}
	return moments{mean, m2, m4}
}

// continuousMoments returns the moments of the density pdf restricted to
// [lo, hi] (finite), normalized over it, by composite Simpson's rule on
// 2·10^5 intervals: for the smooth densities tested its error is far below
// the statistical tolerances.
func continuousMoments(pdf func(x float64) float64, lo, hi float64) moments {
	const n = 200000
	h := (hi - lo) / n
	integrate := func(f func(x float64) float64) float64 {
		s := f(lo) + f(hi)
		for i := 1; i < n; i++ {
			x := lo + float64(i)*h
			if i%2 == 1 {
				s += 4 * f(x)
			} else {
				s += 2 * f(x)
			}
		}
		return s * h / 3
	}
	z := integrate(pdf)
	mean := integrate(func(x float64) float64 { return x * pdf(x) }) / z
	variance := integrate(func(x float64) float64 { return (x - mean) * (x - mean) * pdf(x) }) / z
	mu4 := integrate(func(x float64) float64 { d := x - mean; return d * d * d * d * pdf(x) }) / z
	return moments{mean, variance, mu4}
}

// checkBounds checks that every x is in [lo, hi].
func checkBounds(t *testing.T, name string, xs []float64, lo, hi float64) {
	t.Helper()
	for _, x := range xs {
		if x < lo || x > hi || math.IsNaN(x) {
			t.Errorf("%s: value %g outside [%g, %g]", name, x, lo, hi)
			return
		}
	}
}
