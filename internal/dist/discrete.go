// This file implements the integer distributions uniform_int, geometric,
// poisson, binomial and bernoulli.

package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// uniformIntDist is uniform_int(a, b): each integer in [a, b] with
// probability 1/(b−a+1). Restricted to a range it is uniform on the
// integers of the intersection.
type uniformIntDist struct{ a, b int64 }

func (d uniformIntDist) kind() Kind                { return KindInt }
func (d uniformIntDist) support() (lo, hi float64) { return float64(d.a), float64(d.b) }

// count returns the number of integers in [d.a, d.b] as a float.
func (d uniformIntDist) count() float64 { return float64(uint64(d.b-d.a)) + 1 }

func (d uniformIntDist) restrict(lo, hi float64) (scalarDist, float64) {
	l, h, empty := intRange(lo, hi, float64(d.a), float64(d.b))
	if empty {
		return nil, 0
	}
	// Keep the ends exact: float64(a) may have rounded.
	t := uniformIntDist{max(d.a, toInt(l)), min(d.b, toInt(h))}
	if t.a > t.b {
		return nil, 0
	}
	return t, t.count() / d.count()
}

func (d uniformIntDist) int(r *rand.Rand) int64 {
	span := uint64(d.b - d.a)
	if span == math.MaxUint64 {
		return int64(r.Uint64())
	}
	return d.a + int64(r.Uint64N(span+1))
}

func (d uniformIntDist) float(r *rand.Rand) float64 { return float64(d.int(r)) }

// geometricDist is geometric(p): the number of failures before the first
// success in Bernoulli(p) trials, P(K = k) = (1−p)^k·p on k = 0, 1, 2, …
// (mean (1−p)/p, variance (1−p)/p²). p must be in (0, 1); p = 1 is const(0).
//
// It draws by the inverse CDF, K = ⌊log(1 − U·c)/log(1 − p)⌋ with c = 1.
// Restricted to the integers [lo, hi] it is lo plus a geometric restricted
// to [0, hi − lo] (memorylessness): the same formula with
// c = 1 − (1−p)^(hi−lo+1), the CDF at hi − lo.
type geometricDist struct {
	p      float64
	lnq    float64 // log(1 − p)
	trunc  bool
	lo, hi float64 // whole numbers; hi may be +Inf
	c      float64
}

func newGeometric(p float64) *geometricDist {
	return &geometricDist{p: p, lnq: math.Log1p(-p), lo: 0, hi: math.Inf(1), c: 1}
}

func (d *geometricDist) kind() Kind                { return KindInt }
func (d *geometricDist) support() (lo, hi float64) { return d.lo, d.hi }

func (d *geometricDist) restrict(lo, hi float64) (scalarDist, float64) {
	l, h, empty := intRange(lo, hi, d.lo, d.hi)
	if empty {
		return nil, 0
	}
	t := &geometricDist{p: d.p, lnq: d.lnq, trunc: true, lo: l, hi: h, c: -math.Expm1((h - l + 1) * d.lnq)}
	// P(l ≤ K ≤ h) = (1−p)^l·c, relative to the current restriction.
	mass := math.Exp((l-d.lo)*d.lnq) * t.c / d.c
	if !(mass > 0) {
		return nil, 0
	}
	return t, mass
}

func (d *geometricDist) int(r *rand.Rand) int64 {
	k := math.Floor(math.Log1p(-r.Float64()*d.c) / d.lnq)
	return toInt(math.Min(d.lo+k, d.hi))
}

func (d *geometricDist) float(r *rand.Rand) float64 { return float64(d.int(r)) }

// poissonDist is poisson(l), P(K = k) = l^k·e^(−l)/k!, drawn by gonum's
// distuv.Poisson. Restricted to a range it becomes a truncDiscrete.
type poissonDist struct{ lambda float64 }

func (d poissonDist) kind() Kind                { return KindInt }
func (d poissonDist) support() (lo, hi float64) { return 0, math.Inf(1) }
func (d poissonDist) draw(r *rand.Rand) float64 {
	return distuv.Poisson{Lambda: d.lambda, Src: r}.Rand()
}
func (d poissonDist) int(r *rand.Rand) int64     { return toInt(d.draw(r)) }
func (d poissonDist) float(r *rand.Rand) float64 { return d.draw(r) }

// cdf returns P(K ≤ k) for a whole number k.
func (d poissonDist) cdf(k float64) float64 {
	return distuv.Poisson{Lambda: d.lambda}.CDF(k)
}

// surv returns P(K > k) = P(k+1, l), the regularized lower incomplete gamma
// function, accurate far in the upper tail (gonum's Survival is 1 − CDF).
func (d poissonDist) surv(k float64) float64 {
	if k < 0 {
		return 1
	}
	return mathext.GammaIncReg(k+1, d.lambda)
}

func (d poissonDist) restrict(lo, hi float64) (scalarDist, float64) {
	return restrictDiscrete(d, lo, hi)
}

// binomialDist is binomial(n, p), the number of successes in n Bernoulli(p)
// trials, drawn by gonum's distuv.Binomial. Restricted to a range it becomes
// a truncDiscrete.
type binomialDist struct{ n, p float64 }

func (d binomialDist) kind() Kind                { return KindInt }
func (d binomialDist) support() (lo, hi float64) { return 0, d.n }
func (d binomialDist) draw(r *rand.Rand) float64 {
	return distuv.Binomial{N: d.n, P: d.p, Src: r}.Rand()
}
func (d binomialDist) int(r *rand.Rand) int64     { return toInt(d.draw(r)) }
func (d binomialDist) float(r *rand.Rand) float64 { return d.draw(r) }

// cdf returns P(K ≤ k) for a whole number k.
func (d binomialDist) cdf(k float64) float64 {
	return distuv.Binomial{N: d.n, P: d.p}.CDF(k)
}

// surv returns P(K > k) = I_p(k+1, n−k), the regularized incomplete beta
// function, accurate in the upper tail.
func (d binomialDist) surv(k float64) float64 {
	switch {
	case k < 0:
		return 1
	case k >= d.n:
		return 0
	}
	return mathext.RegIncBeta(k+1, d.n-k, d.p)
}

func (d binomialDist) restrict(lo, hi float64) (scalarDist, float64) {
	return restrictDiscrete(d, lo, hi)
}

// bernoulliDist is bernoulli(p): 1 with probability p, else 0, drawn by
// gonum's distuv.Bernoulli. Restricted to a range it becomes the finite
// distribution of the values that remain.
type bernoulliDist struct{ p float64 }

func (d bernoulliDist) kind() Kind                { return KindInt }
func (d bernoulliDist) support() (lo, hi float64) { return 0, 1 }
func (d bernoulliDist) int(r *rand.Rand) int64 {
	return int64(distuv.Bernoulli{P: d.p, Src: r}.Rand())
}
func (d bernoulliDist) float(r *rand.Rand) float64 { return float64(d.int(r)) }

func (d bernoulliDist) restrict(lo, hi float64) (scalarDist, float64) {
	return newFinite(KindInt, []float64{0, 1}, []float64{1 - d.p, d.p}).restrict(lo, hi)
}
