// This file implements Summary, the moments of a CountDist that the stopping rule
// reads and a profile stores.

package stats

import (
	"math"
	"math/bits"
)

// Summary condenses one block's per-trial counts: the trial count N, the mean
// x̄ and the central sums
//
//	M2 = Σ (x − x̄)²,  M3 = Σ (x − x̄)³,  Abs3 = Σ |x − x̄|³.
//
// It is what a profile stores per block and what the stopping rules read. Abs3Lo ≤ Abs3 bound
// the exact Σ|x − x̄|³: they are equal (the value itself) for an exact CountDist, and
// for a coarse one differ only by the bucket that straddles the mean (see
// [CountDist.Summary]); Abs3 is the upper bound, so rules that use it are
// conservative.
type Summary struct {
	N      uint64
	Mean   float64
	M2     float64
	M3     float64
	Abs3   float64
	Abs3Lo float64
	// Zeros is the number of trials in which the block did not run (count 0), and
	// Min, Max the least and greatest count seen; all three are exact for a coarse
	// CountDist too (0 always has a bucket of its own).
	Zeros    uint64
	Min, Max uint64
}

// Ran returns the number of trials in which the block ran at least once.
func (s Summary) Ran() uint64 { return s.N - s.Zeros }

// Indicator reports whether every count seen is 0 or 1: the block ran at most once
// per trial, so its mean is the probability that it runs, a binomial proportion.
func (s Summary) Indicator() bool { return s.N > 0 && s.Max <= 1 }

// Skewness returns the sample skewness g₁ = √N·M3/M2^{3/2} (the moment estimator;
// D. N. Joanes and C. A. Gill, "Comparing measures of sample skewness and
// kurtosis", The Statistician 47(1), 1998), or NaN when M2 = 0.
func (s Summary) Skewness() float64 {
	if s.M2 == 0 || s.N < 2 {
		return math.NaN()
	}
	return math.Sqrt(float64(s.N)) * s.M3 / math.Pow(s.M2, 1.5)
}

// With returns the summary of the sample with one more value x: N, Mean, M2 and M3
// updated by the one-point case of the pairwise formulas (T. Chan, G. Golub and
// R. LeVeque 1979; P. Pébay, "Formulas for robust, one-pass parallel computation
// of covariances and arbitrary-order statistical moments", Sandia SAND2008-6212):
// with δ = x − x̄ and n' = N + 1, x̄' = x̄ + δ/n', M2' = M2 + δ²N/n',
// M3' = M3 + δ³N(N − 1)/n'² − 3δ·M2/n'. Abs3 and Abs3Lo are left as they are
// (they are bounds, not sums about the new mean), Zeros, Min and Max updated.
func (s Summary) With(x float64) Summary {
	n := float64(s.N)
	n1 := n + 1
	d := x - s.Mean
	s.M3 += d*d*d*n*(n-1)/(n1*n1) - 3*d*s.M2/n1
	s.M2 += d * d * n / n1
	s.Mean += d / n1
	s.N++
	if x == 0 {
		s.Zeros++
	}
	if x >= 0 && uint64(x) > s.Max {
		s.Max = uint64(x)
	}
	if x >= 0 && uint64(x) < s.Min {
		s.Min = uint64(x)
	}
	return s
}

// Variance returns s² = M2/(N−1), the unbiased sample variance (FreqSys's Algorithm 1, step 3),
// or NaN when N < 2.
func (s Summary) Variance() float64 {
	if s.N < 2 {
		return math.NaN()
	}
	return s.M2 / float64(s.N-1)
}

// StdDev returns s = √(M2/(N−1)), or NaN when N < 2.
func (s Summary) StdDev() float64 { return math.Sqrt(s.Variance()) }

// Third returns the signed third central moment M3/(N−1), the normalisation of
// FreqSys's Algorithm 1, or NaN when N < 2.
func (s Summary) Third() float64 {
	if s.N < 2 {
		return math.NaN()
	}
	return s.M3 / float64(s.N-1)
}

// AbsThird returns ρ̂ = Abs3/(N−1), the estimate of the absolute third central moment
// E|X − μ|³ with the normalisation of FreqSys's Algorithm 1 taken with the absolute
// moment (m3 = (1/(n−1)) Σ|Y − N|³), or NaN when N < 2.
func (s Summary) AbsThird() float64 {
	if s.N < 2 {
		return math.NaN()
	}
	return s.Abs3 / float64(s.N-1)
}

// Summary evaluates the moments of d. It costs one pass over the table or buckets
// and allocates nothing.
//
// The mean is S1/n from the exact 128-bit sum S1 = Σx: ⌊S1/n⌋ + (S1 mod n)/n, within
// an ulp. The central sums are then taken about x̄ in one pass (the two-pass
// algorithm, with the correction M2 −= (Σ(x − x̄))²/n of Chan, Golub & LeVeque 1983,
// "Algorithms for computing the sample variance", Am. Stat. 37(3)):
//
//   - exact table: Σ f·y^k and Σ f·|y|³ with y = v − x̄, for each value v of frequency
//     f; relative error about (number of distinct values)·2⁻⁵³;
//   - buckets: with a = Lo − x̄ and the exact offset sums D_j = Σ (x − Lo)^j,
//     Σ(x − x̄)² = D2 + 2a·D1 + a²·N and Σ(x − x̄)³ = D3 + 3a·D2 + 3a²·D1 + a³·N
//     (binomial theorem). A bucket wholly above or below x̄ adds ±Σ(x − x̄)³ to Abs3
//     exactly. For the bucket with Min < x̄ < Max, y = x − x̄ changes sign inside and
//     only bounds are known: Σ|y|³ ≤ max|y|·Σy² (max|y| from Min and Max), and
//     Σ|y|³ ≥ max(|Σy³|, (Σy²)^{3/2}/√N) (power-mean inequality); Abs3 adds the upper
//     bound, Abs3Lo the lower. Cancellation in the expansions costs an absolute error
//     of about 2⁻⁵³·N·w² in M2 (w the width of the buckets next to the mean), i.e. a
//     relative error of 2⁻⁵³·(w/s)², negligible unless the spread s is far below the
//     bucket width.
//
// The result is a deterministic function of the state: equal CountDists give equal
// Summaries bit for bit.
func (d *CountDist) Summary() Summary { return d.SummaryZeros(0) }

// SummaryZeros is the Summary of d with k more trials of count 0, bit for bit the
// Summary of d after d.AddN(0, k), without changing d: a block whose function did
// not run in the last k trials (montecarlo folds such trials lazily).
func (d *CountDist) SummaryZeros(k uint64) Summary {
	var s Summary
	var hi, lo uint64 // S1 = Σx, exact: Σx ≤ n·(2⁶⁴−1) < 2¹²⁸
	for _, v := range d.Values {
		h, l := bits.Mul64(v.V, v.N)
		var c uint64
		lo, c = bits.Add64(lo, l, 0)
		hi += h + c
		s.N += v.N
	}
	if len(d.Values) > 0 {
		s.Min, s.Max = d.Values[0].V, d.Values[len(d.Values)-1].V
		if d.Values[0].V == 0 {
			s.Zeros = d.Values[0].N
		}
	}
	if len(d.Buckets) > 0 {
		s.Min, s.Max = d.Buckets[0].Min, d.Buckets[len(d.Buckets)-1].Max
		if d.Buckets[0].Max == 0 {
			s.Zeros = d.Buckets[0].N
		}
	}
	// The k zeros join the table's first entry or bucket, where AddN would put them.
	zeroEntry := len(d.Values) > 0 && d.Values[0].V == 0 || len(d.Buckets) > 0 && d.Buckets[0].Max == 0
	if k > 0 {
		if len(d.Values) == 0 && len(d.Buckets) == 0 {
			s.Max = 0
		}
		s.N += k
		s.Zeros += k
		s.Min = 0
	}
	for _, b := range d.Buckets {
		h, l := bits.Mul64(b.Lo, b.N)
		var c uint64
		lo, c = bits.Add64(lo, l, 0)
		hi += h + c
		lo, c = bits.Add64(lo, b.D1[0], 0)
		hi += b.D1[1] + c
		s.N += b.N
	}
	if s.N == 0 {
		return Summary{Mean: math.NaN()}
	}
	q, r := bits.Div64(hi, lo, s.N) // hi < n since S1 < n·2⁶⁴
	s.Mean = float64(q) + float64(r)/float64(s.N)

	var s1 float64 // Σ(x − x̄), ideally 0: the Chan–Golub–LeVeque correction
	if k > 0 && !zeroEntry && len(d.Buckets) == 0 {
		y := -s.Mean
		fy := float64(k) * y
		fy2 := fy * y
		fy3 := fy2 * y
		s1 += fy
		s.M2 += fy2
		s.M3 += fy3
		s.Abs3 += math.Abs(fy3)
	}
	for i, v := range d.Values {
		y := float64(v.V) - s.Mean
		n := v.N
		if i == 0 && zeroEntry {
			n += k
		}
		fy := float64(n) * y
		fy2 := fy * y
		fy3 := fy2 * y
		s1 += fy
		s.M2 += fy2
		s.M3 += fy3
		s.Abs3 += math.Abs(fy3)
	}
	s.Abs3Lo = s.Abs3
	if k > 0 && !zeroEntry && len(d.Buckets) > 0 {
		// The zeros' own bucket, as the loop below would take it (Lo = Min = Max = 0,
		// D = 0): wholly at or below x̄.
		a, n := 0-s.Mean, float64(k)
		p1 := a * n
		p2 := max(a*a*n, 0)
		p3 := a * a * a * n
		s1 += p1
		s.M2 += p2
		s.M3 += p3
		s.Abs3 += max(-p3, 0)
		s.Abs3Lo += max(-p3, 0)
	}
	for i, b := range d.Buckets {
		bn := b.N
		if i == 0 && zeroEntry {
			bn += k
		}
		n := float64(bn)
		d1, d2, d3 := b.D1.Float64(), b.D2.Float64(), b.D3.Float64()
		a := float64(b.Lo) - s.Mean
		p1 := d1 + a*n
		p2 := max(d2+2*a*d1+a*a*n, 0)
		p3 := d3 + 3*a*d2 + 3*a*a*d1 + a*a*a*n
		s1 += p1
		s.M2 += p2
		s.M3 += p3
		switch ymin, ymax := float64(b.Min)-s.Mean, float64(b.Max)-s.Mean; {
		case ymin >= 0:
			s.Abs3 += max(p3, 0)
			s.Abs3Lo += max(p3, 0)
		case ymax <= 0:
			s.Abs3 += max(-p3, 0)
			s.Abs3Lo += max(-p3, 0)
		default:
			s.Abs3 += max(ymax, -ymin) * p2
			s.Abs3Lo += max(math.Abs(p3), p2*math.Sqrt(p2/n))
		}
	}
	s.M2 = max(s.M2-s1*s1/float64(s.N), 0)
	return s
}
