// This file implements exact binomial intervals: Clopper–Pearson and the rule of
// three, for blocks that run in few trials.

package stats

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClopperPearson returns the exact two-sided interval [lo, hi] of a binomial
// proportion p after k successes in n trials, at confidence γ (C. J. Clopper and
// E. S. Pearson, "The use of confidence or fiducial limits illustrated in the case of
// the binomial", Biometrika 26(4), 1934), with α = 1 − γ:
//
//	lo = B(α/2; k, n − k + 1)      (0 when k = 0)
//	hi = B(1 − α/2; k + 1, n − k)  (1 when k = n)
//
// where B(q; a, b) is the q-quantile of the Beta(a, b) distribution (gonum
// distuv.Beta). It covers p with probability at least γ for every p and n. n = 0
// gives [0, 1].
//
// The interval is remembered (cpCache): a run judges many blocks with the same k
// and n at a check — those that run in the same trials — and each Beta quantile
// is an iterative inversion.
func ClopperPearson(k, n uint64, gamma float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	return cpCache.get(k, n, 0, gamma)
}

// cpEntry is a remembered interval: Clopper–Pearson's for pop = 0, else the
// hypergeometric one of a population of pop.
type cpEntry struct {
	k, n, pop uint64
	gamma     float64
	lo, hi    float64
}

// clopperPearsonCache is a direct-mapped cache of intervals by (k, n, N, γ): a
// collision replaces the entry, so its size is fixed.
type clopperPearsonCache struct {
	mu      sync.Mutex
	entries [1 << 14]cpEntry
}

var cpCache clopperPearsonCache

func (c *clopperPearsonCache) get(k, n, pop uint64, gamma float64) (lo, hi float64) {
	h := (k*0x9e3779b97f4a7c15 ^ n*0xc2b2ae3d27d4eb4f ^ pop*0x27d4eb2f165667c5 ^ math.Float64bits(gamma)) * 0x165667b19e3779f9
	e := &c.entries[h>>(64-14)]
	c.mu.Lock()
	if e.n == n && e.k == k && e.pop == pop && e.gamma == gamma { // n > 0: never the zero entry
		lo, hi = e.lo, e.hi
		c.mu.Unlock()
		return lo, hi
	}
	c.mu.Unlock()
	if pop == 0 {
		lo, hi = clopperPearson(k, n, gamma)
	} else {
		lo, hi = hypergeometric(k, n, pop, gamma)
	}
	c.mu.Lock()
	*e = cpEntry{k, n, pop, gamma, lo, hi}
	c.mu.Unlock()
	return lo, hi
}

// clopperPearson computes the interval of ClopperPearson, for n > 0.
func clopperPearson(k, n uint64, gamma float64) (lo, hi float64) {
	a := (1 - gamma) / 2
	kf, nf := float64(k), float64(n)
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: kf, Beta: nf - kf + 1}.Quantile(a)
	}
	if k < n {
		hi = distuv.Beta{Alpha: kf + 1, Beta: nf - kf}.Quantile(1 - a)
	}
	return lo, hi
}

// RuleOfThree returns the one-sided upper bound 1 − (1 − γ)^{1/n} of a probability
// whose event did not happen in n trials: the exact Clopper–Pearson one-sided bound
// for k = 0, since (1 − p)ⁿ = 1 − γ at that p. At γ = 0.95 it is about 3/n
// (−ln 0.05 = 2.996; B. D. Jovanovic and P. S. Levy, "A look at the rule of three",
// The American Statistician 51(2), 1997). n = 0 gives 1.
func RuleOfThree(n uint64, gamma float64) float64 {
	if n == 0 {
		return 1
	}
	return -math.Expm1(math.Log1p(-gamma) / float64(n))
}

// RunProbability bounds the probability that a block runs in a trial, from the k
// trials of n in which it ran: the rule of three when k = 0 ([0, RuleOfThree]),
// else the Clopper–Pearson interval.
func RunProbability(k, n uint64, gamma float64) (lo, hi float64) {
	if k == 0 {
		return 0, RuleOfThree(n, gamma)
	}
	return ClopperPearson(k, n, gamma)
}
