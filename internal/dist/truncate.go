// This file implements the restriction of poisson and binomial to a range:
// rejection when the range is likely, inversion of the CDF otherwise.

package dist

import (
	"math"
	"math/rand/v2"
)

// cdfDist is an integer distribution known through its CDF and survival
// function, as gonum gives them for poisson and binomial (no quantile).
type cdfDist interface {
	scalarDist
	draw(r *rand.Rand) float64 // an unrestricted draw
	cdf(k float64) float64     // P(K ≤ k)
	surv(k float64) float64    // P(K > k), accurate where the CDF is near 1
}

const (
	// rejectMass is the smallest range probability m for which a
	// restricted cdfDist draws by rejection (1/m unrestricted draws on
	// average, about 50 ns each); below it, inversion (some 10 CDF
	// evaluations of about 0.3 µs) is cheaper.
	rejectMass = 0.05
	// rejectMiss bounds the probability that a rejection draw gives up:
	// it makes at most ⌈log(rejectMiss)/log(1−m)⌉ attempts (at most 404)
	// and then falls back to inversion. Either branch draws exactly from
	// the restricted distribution, so the mixture does too.
	rejectMiss = 1e-9
)

// truncDiscrete is a cdfDist restricted to the integers [lo, hi]. It
// draws by rejection when the range is likely (see rejectMass), else by
// inversion.
//
// With G(k) = P(lo ≤ K ≤ k) and m = G(hi) (the range's probability),
// inversion draws U uniform on [0, 1) and returns the smallest k in
// [lo, hi] with G(k) ≥ U·m, found by doubling steps from lo and then
// bisection: O(log(k − lo)) evaluations of the CDF. G is computed from the
// CDF, G(k) = F(k) − F(lo−1), when F(lo−1) ≤ 1/2, and from the survival
// function, G(k) = S(lo−1) − S(k), when the range lies in the upper tail,
// so that it keeps its precision there.
type truncDiscrete struct {
	base   cdfDist
	lo, hi float64 // whole numbers; hi may be +Inf
	mass   float64 // P(lo ≤ K ≤ hi) under base
	upper  bool    // G from the survival function
	g0     float64 // F(lo−1), or S(lo−1) when upper
	tries  int     // rejection attempts before inversion; 0: inversion only
}

// restrictDiscrete restricts base, unrestricted, to [lo, hi].
func restrictDiscrete(base cdfDist, lo, hi float64) (scalarDist, float64) {
	a, b := base.support()
	l, h, empty := intRange(lo, hi, a, b)
	if empty {
		return nil, 0
	}
	t := &truncDiscrete{base: base, lo: l, hi: h}
	if f := base.cdf(l - 1); f <= 0.5 {
		t.g0 = f
	} else {
		t.upper = true
		t.g0 = base.surv(l - 1)
	}
	t.mass = t.g(h)
	if !(t.mass > 0) {
		return nil, 0
	}
	switch {
	case t.mass >= 1:
		t.tries = 1
	case t.mass >= rejectMass:
		t.tries = int(math.Ceil(math.Log(rejectMiss) / math.Log1p(-t.mass)))
	}
	return t, t.mass
}

func (t *truncDiscrete) kind() Kind                { return KindInt }
func (t *truncDiscrete) support() (lo, hi float64) { return t.lo, t.hi }

func (t *truncDiscrete) restrict(lo, hi float64) (scalarDist, float64) {
	n, m := restrictDiscrete(t.base, math.Max(lo, t.lo), math.Min(hi, t.hi))
	return n, m / t.mass
}

// g returns G(k) = P(lo ≤ K ≤ k).
func (t *truncDiscrete) g(k float64) float64 {
	if math.IsInf(k, 1) {
		if t.upper {
			return t.g0
		}
		return 1 - t.g0
	}
	if t.upper {
		return t.g0 - t.base.surv(k)
	}
	return t.base.cdf(k) - t.g0
}

func (t *truncDiscrete) float(r *rand.Rand) float64 {
	for range t.tries {
		if x := t.base.draw(r); t.lo <= x && x <= t.hi {
			return x
		}
	}
	return t.invert(r)
}

// invert draws by inversion of the CDF.
func (t *truncDiscrete) invert(r *rand.Rand) float64 { return t.invertAt(r.Float64() * t.mass) }

// invertAt returns the least k in [lo, hi] with G(k) ≥ target.
func (t *truncDiscrete) invertAt(target float64) float64 {
	// Find a < k ≤ b with G(a) < target ≤ G(b).
	a, b, step := t.lo-1, t.lo, 1.0
	for i := 0; ; i++ {
		if b >= t.hi {
			b = t.hi
			break
		}
		if t.g(b) >= target || i > 1100 {
			break
		}
		a, b, step = b, t.lo+step, step*2
	}
	for b-a > 1 {
		m := math.Floor(a + (b-a)/2)
		if m <= a || m >= b { // beyond 2^53 the integers are not all floats
			break
		}
		if t.g(m) >= target {
			b = m
		} else {
			a = m
		}
	}
	return b
}

func (t *truncDiscrete) int(r *rand.Rand) int64 { return toInt(t.float(r)) }
