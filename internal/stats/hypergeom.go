// This file implements the exact interval of a share of a finite population drawn
// without replacement: the hypergeometric counterpart of Clopper–Pearson.

package stats

import (
	"math"
	"sort"
)

// Hypergeometric returns the exact two-sided interval [lo, hi] of the share K/N of
// the members of a population of N in which an event happens, after it happened in
// k of n members drawn without replacement, at confidence γ, α = 1 − γ. With X the
// hypergeometric number of members with the event among n drawn from N of which K
// have it,
//
//	lo = K_L/N,  K_L = min{K : P_K(X ≥ k) > α/2}    (0 when k = 0)
//	hi = K_U/N,  K_U = max{K : P_K(X ≤ k) > α/2}    (1 − (n − k)/N when k = n)
//
// over k ≤ K ≤ N − n + k: the values of K that neither one-sided test at level α/2
// rejects, as Clopper and Pearson invert the binomial (J. P. Buonaccorsi, "A note on
// confidence intervals for proportions in finite populations", The American
// Statistician 41(3), 1987; T. Wright, "Exact Confidence Bounds when Sampling from
// Small Finite Universes", Lecture Notes in Statistics 66, Springer 1991). Since
// P_K(X ≥ k) grows and P_K(X ≤ k) falls with K, each bound misses K with
// probability at most α/2, and the interval covers K/N with probability at least
// γ for every K, n and N. Its width is about √(1 − n/N) times that of the
// Clopper–Pearson interval of k/n, it is the point k/N at n = N, and as N → ∞ it
// tends to Clopper–Pearson's. n = 0 gives [0, 1]; N = 0 or n > N (not a sample without
// replacement of N) gives ClopperPearson(k, n, γ).
//
// The probabilities are sums of the hypergeometric probability function
// C(K, x)·C(N − K, n − x)/C(N, n), its first term from log-gamma and the others by
// the ratio of consecutive terms, summed from the tail inwards (N. L. Johnson,
// A. W. Kemp and S. Kotz, "Univariate Discrete Distributions", 3rd ed., Wiley 2005,
// §6.2): the tail beyond the mode only, the other side as the complement. The
// interval is remembered like ClopperPearson's.
func Hypergeometric(k, n, N uint64, gamma float64) (lo, hi float64) {
	switch {
	case n == 0:
		return 0, 1
	case N == 0 || n > N:
		return ClopperPearson(k, n, gamma)
	}
	return cpCache.get(k, n, N, gamma)
}

// hypergeometric computes the interval of Hypergeometric, for 0 < n ≤ N, k ≤ n.
func hypergeometric(k, n, N uint64, gamma float64) (lo, hi float64) {
	a := (1 - gamma) / 2
	h := newHyper(n, N)
	first, last := k, N-n+k // the K consistent with k of n
	// P_K(X ≤ k) falls and P_K(X ≥ k) rises with K: each bound is a search.
	m := int(last-first) + 1
	// K_U: the largest K with P_K(X ≤ k) > a; P_first(X ≤ k) = 1.
	ku := first + uint64(sort.Search(m, func(i int) bool { return h.cdf(k, first+uint64(i)) <= a })) - 1
	// K_L: the least K with P_K(X ≥ k) > a; P_last(X ≥ k) = 1.
	kl := first + uint64(sort.Search(m, func(i int) bool { return h.sf(k, first+uint64(i)) > a }))
	return float64(kl) / float64(N), float64(ku) / float64(N)
}

// hyper is the hypergeometric distribution of the number of marked members among
// n drawn without replacement from N, for a number K of marked members given to
// each method. logSamples is ln C(N, n), the same for every K: the interval's
// bisections evaluate the probability function at many K of one (n, N).
type hyper struct {
	n, N       uint64
	logSamples float64
}

// newHyper returns the distribution of n draws from N.
func newHyper(n, N uint64) hyper { return hyper{n: n, N: N, logSamples: logChoose(N, n)} }

// support returns the least and greatest x of positive probability.
func (h hyper) support(K uint64) (lo, hi uint64) {
	if h.n+K > h.N {
		lo = h.n + K - h.N
	}
	return lo, min(h.n, K)
}

// logPMF returns ln P_K(X = x), x in the support.
func (h hyper) logPMF(x, K uint64) float64 {
	return logChoose(K, x) + logChoose(h.N-K, h.n-x) - h.logSamples
}

// cdf returns P_K(X ≤ x).
func (h hyper) cdf(x, K uint64) float64 {
	lo, hi := h.support(K)
	switch {
	case x < lo:
		return 0
	case x >= hi:
		return 1
	}
	if float64(x) < h.mode(K) {
		return h.lower(x, K)
	}
	return max(0, 1-h.upper(x+1, K))
}

// sf returns P_K(X ≥ x).
func (h hyper) sf(x, K uint64) float64 {
	lo, hi := h.support(K)
	switch {
	case x <= lo:
		return 1
	case x > hi:
		return 0
	}
	if float64(x) > h.mode(K) {
		return h.upper(x, K)
	}
	return max(0, 1-h.lower(x-1, K))
}

// mode returns ⌊(n + 1)(K + 1)/(N + 2)⌋, where the probability function peaks.
func (h hyper) mode(K uint64) float64 {
	return math.Floor(float64(h.n+1) * float64(K+1) / float64(h.N+2))
}

// tiny is the share of the sum below which a term of a tail beyond the mode ends
// the sum: the terms fall at least geometrically there (the probability function
// is log-concave), so what is left is of that order.
const tiny = 1e-17

// lower returns P_K(X ≤ x) for x in the support, summed from x downwards.
func (h hyper) lower(x, K uint64) float64 {
	lo, _ := h.support(K)
	p := math.Exp(h.logPMF(x, K))
	sum := p
	nk := float64(h.N - K)
	for y := x; y > lo && p > tiny*sum; y-- {
		// P(y − 1)/P(y) = y·(N − K − n + y)/((K − y + 1)(n − y + 1)).
		fy := float64(y)
		p *= fy * (nk - float64(h.n) + fy) / ((float64(K) - fy + 1) * (float64(h.n) - fy + 1))
		sum += p
	}
	return min(1, sum)
}

// upper returns P_K(X ≥ x) for x in the support, summed from x upwards.
func (h hyper) upper(x, K uint64) float64 {
	_, hi := h.support(K)
	p := math.Exp(h.logPMF(x, K))
	sum := p
	nk := float64(h.N - K)
	for y := x; y < hi && p > tiny*sum; y++ {
		// P(y + 1)/P(y) = (K − y)(n − y)/((y + 1)(N − K − n + y + 1)).
		fy := float64(y)
		p *= (float64(K) - fy) * (float64(h.n) - fy) / ((fy + 1) * (nk - float64(h.n) + fy + 1))
		sum += p
	}
	return min(1, sum)
}

// logChoose returns ln C(a, b) for b ≤ a.
func logChoose(a, b uint64) float64 {
	return lgamma(float64(a)+1) - lgamma(float64(b)+1) - lgamma(float64(a-b)+1)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}
