// This file implements Latin hypercube units: draws of consecutive trials that
// stratify every scalar input.

package dist

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Latin hypercube units (M. D. McKay, R. J. Beckman and W. J. Conover, "A
// comparison of three methods for selecting values of input variables in the
// analysis of output from a computer code", Technometrics 21(2), 1979): with a
// unit of m trials, trials j·m … j·m + m − 1 form unit j, and a numeric scalar
// input X with quantile function Q takes in trial j·m + k the value
//
//	X = Q((π_j(k) + V)/m)
//
// where π_j is a random permutation of 0 … m−1 drawn for (seed, j, input) and V
// is uniform on [0, 1) from the trial's own stream of the input. Each input's m
// values in a unit fall one in each of m equally likely strata, the inputs'
// permutations are independent, and each trial's X has exactly X's
// distribution: every estimate stays unbiased. Trial i's values still depend on
// (seed, i) and the model alone (the unit's permutation is drawn again from its
// own stream for every trial that needs it).
//
// Every numeric scalar input is stratified (every numeric distribution here
// inverts: TestLatinEveryDistribution); arrays' elements, strings and drawn
// lengths keep their independent draws.

// quantiler is a scalarDist that draws by inversion: quantile(u), u in (0, 1),
// is the least x with F(x) ≥ u, so quantile(U) for U uniform has the
// distribution.
type quantiler interface {
	quantile(u float64) float64
}

// latinKey is xored into an input's stream key to make the key of the stream its
// units' permutations are drawn from.
var latinKey = mix(streamKey("#latin"))

// SetUnit makes the draws into s Latin hypercube units of m consecutive trials
// (see above); m ≤ 1 makes them independent again.
func (s *Sample) SetUnit(m int) {
	s.unit = max(m, 0)
	if cap(s.perm) < m {
		s.perm = make([]int, m)
	}
}

// stratified returns the uniform number of the current input in the current
// trial: (π_j(k) + V)/m, strictly inside (0, 1).
func (s *Sample) stratified() float64 {
	m := uint64(s.unit)
	unit, k := s.Trial/m, s.Trial%m
	seedStream(&s.subPCG, s.Seed, unit, s.key^latinKey)
	perm := s.perm[:m]
	for i := range perm {
		perm[i] = i
	}
	s.subRng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
	u := (float64(perm[k]) + s.rng.Float64()) / float64(m)
	return math.Min(math.Max(u, 0x1p-60), 1-0x1p-53)
}

func (d uniformDist) quantile(u float64) float64 { return math.Min(d.a+u*(d.b-d.a), d.b) }

func (d uniformIntDist) quantile(u float64) float64 {
	return math.Min(float64(d.a)+math.Floor(u*d.count()), float64(d.b))
}

func (d *normalDist) quantile(u float64) float64 {
	if d.trunc {
		u = d.pa + u*(d.pb-d.pa)
	}
	z := distuv.UnitNormal.Quantile(u)
	if d.reflect {
		z = -z
	}
	x := d.mu + d.sigma*z
	if d.log {
		x = math.Exp(x)
	}
	if d.trunc {
		x = math.Min(math.Max(x, d.lo), d.hi)
	}
	return x
}

func (d *expDist) quantile(u float64) float64 {
	if !d.trunc {
		return -math.Log1p(-u) / d.rate
	}
	return math.Min(d.lo-math.Log1p(-u*d.c)/d.rate, d.hi)
}

func (d *geometricDist) quantile(u float64) float64 {
	k := math.Floor(math.Log1p(-u*d.c) / d.lnq)
	return math.Min(d.lo+k, d.hi)
}

func (d *finiteDist) quantile(u float64) float64 {
	if d.cum == nil {
		return d.floats[min(int(u*float64(len(d.floats))), len(d.floats)-1)]
	}
	i := sort.Search(len(d.cum), func(i int) bool { return d.cum[i] >= u })
	return d.floats[min(i, len(d.cum)-1)]
}

func (t *truncDiscrete) quantile(u float64) float64 { return t.invertAt(u * t.mass) }

func (d poissonDist) quantile(u float64) float64 {
	t, _ := restrictDiscrete(d, 0, math.Inf(1))
	return t.(*truncDiscrete).quantile(u)
}

func (d binomialDist) quantile(u float64) float64 {
	t, _ := restrictDiscrete(d, 0, d.n)
	return t.(*truncDiscrete).quantile(u)
}

func (d bernoulliDist) quantile(u float64) float64 {
	if u <= 1-d.p {
		return 0
	}
	return 1
}
