// This file implements Moments, the streaming and mergeable central moments of
// floating-point data.

package stats

import "math"

// Moments accumulates the count, mean and central sums of powers of a stream of
// float64 values, one value at a time ([Moments.Add]) or by combining two
// accumulators ([Moments.Merge]). The zero value is an empty accumulator.
//
// With x̄ the mean of the N values seen, the fields are
//
//	M2 = Σ (x − x̄)²,  M3 = Σ (x − x̄)³,  M4 = Σ (x − x̄)⁴.
//
// The update and merge formulas are exact in real arithmetic; in floating point they
// are the numerically stable forms (no sums of raw powers), but merging is not
// associative bit for bit: two groupings of the same data agree to a few ulps.
// Use [CountDist] when bit-for-bit reproducibility across shards is required.
type Moments struct {
	N    uint64
	Mean float64
	M2   float64
	M3   float64
	M4   float64
}

// Add adds one value x. With n the new count, δ = x − x̄_old and δ' = δ/n
// (Welford 1962 for M2; Pébay 2008, eqs. 2.1–2.3 / Terriberry 2007 for M3 and M4):
//
//	x̄  += δ'
//	M4 += δ·δ'³·(n−1)(n²−3n+3) + 6δ'²·M2 − 4δ'·M3
//	M3 += δ·δ'²·(n−1)(n−2) − 3δ'·M2
//	M2 += δ·δ'·(n−1)
//
// with M2 and M3 on the right-hand sides taken before the update.
//
// References: B. P. Welford, "Note on a method for calculating corrected sums of
// squares and products", Technometrics 4(3), 1962. P. Pébay, "Formulas for robust,
// one-pass parallel computation of covariances and arbitrary-order statistical
// moments", Sandia report SAND2008-6212, 2008.
func (m *Moments) Add(x float64) {
	n1 := float64(m.N)
	m.N++
	n := float64(m.N)
	delta := x - m.Mean
	dn := delta / n
	dn2 := dn * dn
	term1 := delta * dn * n1
	m.Mean += dn
	m.M4 += term1*dn2*(n*n-3*n+3) + 6*dn2*m.M2 - 4*dn*m.M3
	m.M3 += term1*dn*(n-2) - 3*dn*m.M2
	m.M2 += term1
}

// Merge adds the values accumulated in o, as if they had been added to m one by one.
// With n = na + nb and δ = x̄b − x̄a (Chan, Golub & LeVeque 1979 for M2; Pébay 2008,
// eq. 3.1, for M3 and M4):
//
//	x̄  = x̄a + δ·nb/n
//	M2 = M2a + M2b + δ²·na·nb/n
//	M3 = M3a + M3b + δ³·na·nb·(na−nb)/n² + 3δ·(na·M2b − nb·M2a)/n
//	M4 = M4a + M4b + δ⁴·na·nb·(na²−na·nb+nb²)/n³
//	     + 6δ²·(na²·M2b + nb²·M2a)/n² + 4δ·(na·M3b − nb·M3a)/n
//
// References: T. F. Chan, G. H. Golub, R. J. LeVeque, "Updating formulae and a
// pairwise algorithm for computing sample variances", Stanford CS report
// STAN-CS-79-773, 1979; Pébay 2008 (see [Moments.Add]).
func (m *Moments) Merge(o Moments) {
	if o.N == 0 {
		return
	}
	if m.N == 0 {
		*m = o
		return
	}
	na, nb := float64(m.N), float64(o.N)
	n := na + nb
	d := o.Mean - m.Mean
	d2 := d * d
	m4 := m.M4 + o.M4 + d2*d2*na*nb*(na*na-na*nb+nb*nb)/(n*n*n) +
		6*d2*(na*na*o.M2+nb*nb*m.M2)/(n*n) + 4*d*(na*o.M3-nb*m.M3)/n
	m3 := m.M3 + o.M3 + d2*d*na*nb*(na-nb)/(n*n) + 3*d*(na*o.M2-nb*m.M2)/n
	m2 := m.M2 + o.M2 + d2*na*nb/n
	m.N += o.N
	m.Mean += d * nb / n
	m.M2, m.M3, m.M4 = m2, m3, m4
}

// MomentsOf returns the Moments of xs, added in order.
func MomentsOf(xs []float64) Moments {
	var m Moments
	for _, x := range xs {
		m.Add(x)
	}
	return m
}

// Variance returns the unbiased sample variance s² = M2/(N−1), or NaN when N < 2.
func (m Moments) Variance() float64 {
	if m.N < 2 {
		return math.NaN()
	}
	return m.M2 / float64(m.N-1)
}

// StdDev returns the sample standard deviation s = √(M2/(N−1)), or NaN when N < 2.
func (m Moments) StdDev() float64 { return math.Sqrt(m.Variance()) }

// StdErr returns the standard error of the mean s/√N, or NaN when N < 2. It is the
// timing guide's σ̃ = √(Σ(tᵢ − t̃)² / (N(N−1))).
func (m Moments) StdErr() float64 { return m.StdDev() / math.Sqrt(float64(m.N)) }

// Skewness returns the sample skewness g₁ = √N·M3 / M2^{3/2} (the moment estimator,
// as in Joanes & Gill 1998, "Comparing measures of sample skewness and kurtosis",
// The Statistician 47(1)), or NaN when M2 = 0.
func (m Moments) Skewness() float64 {
	if m.M2 == 0 {
		return math.NaN()
	}
	return math.Sqrt(float64(m.N)) * m.M3 / math.Pow(m.M2, 1.5)
}
