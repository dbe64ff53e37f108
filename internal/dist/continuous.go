// This file implements the continuous distributions uniform, normal,
// lognormal and exponential, restricted to a range by the inverse CDF.

package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// uniformDist is uniform(a, b). Restricted to [lo, hi] it is uniform on the
// intersection, so restriction only moves the ends.
type uniformDist struct{ a, b float64 }

func (d uniformDist) kind() Kind                { return KindFloat }
func (d uniformDist) support() (lo, hi float64) { return d.a, d.b }

func (d uniformDist) restrict(lo, hi float64) (scalarDist, float64) {
	lo, hi = math.Max(lo, d.a), math.Min(hi, d.b)
	if lo >= hi {
		return nil, 0
	}
	return uniformDist{lo, hi}, (hi - lo) / (d.b - d.a)
}

func (d uniformDist) float(r *rand.Rand) float64 {
	return distuv.Uniform{Min: d.a, Max: d.b, Src: r}.Rand()
}

func (d uniformDist) int(*rand.Rand) int64 { panic("dist: int draw of a float distribution") }

// normalDist is normal(mu, sigma), or lognormal(mu, sigma) (the exp of a
// normal(mu, sigma)) when log is set.
//
// Restricted to [lo, hi] it draws by the inverse CDF: with α, β the bounds
// standardized (for lognormal, of log lo and log hi), Z = Φ⁻¹(U) with U
// uniform on [Φ(α), Φ(β)], X = mu + sigma·Z. When α > 0 the whole range
// lies in the upper tail, where Φ is close to 1 and loses precision, so it
// draws −Z from [−β, −α] instead (Φ is accurate near 0).
type normalDist struct {
	mu, sigma float64
	log       bool
	trunc     bool
	lo, hi    float64 // bounds of X when trunc
	pa, pb    float64 // Φ at the (reflected) standardized bounds
	reflect   bool
}

func (d *normalDist) kind() Kind { return KindFloat }

func (d *normalDist) support() (lo, hi float64) {
	switch {
	case d.trunc:
		return d.lo, d.hi
	case d.log:
		return 0, math.Inf(1)
	}
	return math.Inf(-1), math.Inf(1)
}

// standardize maps a bound of X to the standard normal scale.
func (d *normalDist) standardize(x float64) float64 {
	if d.log {
		if x <= 0 {
			return math.Inf(-1)
		}
		x = math.Log(x)
	}
	return (x - d.mu) / d.sigma
}

func (d *normalDist) restrict(lo, hi float64) (scalarDist, float64) {
	l0, h0 := d.support()
	lo, hi = math.Max(lo, l0), math.Min(hi, h0)
	if lo >= hi {
		return nil, 0
	}
	t := &normalDist{mu: d.mu, sigma: d.sigma, log: d.log, trunc: true, lo: lo, hi: hi}
	za, zb := t.standardize(lo), t.standardize(hi)
	if za > 0 {
		t.reflect = true
		za, zb = -zb, -za
	}
	t.pa, t.pb = distuv.UnitNormal.CDF(za), distuv.UnitNormal.CDF(zb)
	mass := t.pb - t.pa
	if d.trunc {
		mass /= d.pb - d.pa
	}
	if !(mass > 0) {
		return nil, 0
	}
	return t, mass
}

func (d *normalDist) float(r *rand.Rand) float64 {
	if !d.trunc {
		if d.log {
			return distuv.LogNormal{Mu: d.mu, Sigma: d.sigma, Src: r}.Rand()
		}
		return distuv.Normal{Mu: d.mu, Sigma: d.sigma, Src: r}.Rand()
	}
	for {
		// quantile maps u to pa + u·(pb − pa), which must lie inside (0, 1).
		if u := r.Float64(); d.pa+u*(d.pb-d.pa) > 0 && d.pa+u*(d.pb-d.pa) < 1 {
			return d.quantile(u)
		}
	}
}

func (d *normalDist) int(*rand.Rand) int64 { panic("dist: int draw of a float distribution") }

// expDist is exponential(rate), density rate·e^(−rate·x) on [0, ∞).
//
// Restricted to [lo, hi] it is lo plus an exponential restricted to
// [0, hi − lo] (memorylessness), drawn by the inverse CDF
// X = lo − log(1 − U·c)/rate with c = 1 − e^(−rate·(hi−lo)).
type expDist struct {
	rate   float64
	trunc  bool
	lo, hi float64
	c      float64
}

func (d *expDist) kind() Kind { return KindFloat }

func (d *expDist) support() (lo, hi float64) {
	if d.trunc {
		return d.lo, d.hi
	}
	return 0, math.Inf(1)
}

func (d *expDist) restrict(lo, hi float64) (scalarDist, float64) {
	l0, h0 := d.support()
	lo, hi = math.Max(lo, l0), math.Min(hi, h0)
	if lo >= hi {
		return nil, 0
	}
	t := &expDist{rate: d.rate, trunc: true, lo: lo, hi: hi, c: -math.Expm1(-d.rate * (hi - lo))}
	// P(lo ≤ X ≤ hi) = e^(−rate·lo)·c, relative to the current restriction.
	mass := math.Exp(-d.rate*(lo-l0)) * t.c
	if d.trunc {
		mass /= d.c
	}
	if !(mass > 0) {
		return nil, 0
	}
	return t, mass
}

func (d *expDist) float(r *rand.Rand) float64 {
	if !d.trunc {
		return distuv.Exponential{Rate: d.rate, Src: r}.Rand()
	}
	x := d.lo - math.Log1p(-r.Float64()*d.c)/d.rate
	return math.Min(x, d.hi)
}

func (d *expDist) int(*rand.Rand) int64 { panic("dist: int draw of a float distribution") }
