// This file defines numeric scalar distributions and the finite ones:
// const, choice, empirical and a restricted bernoulli.

package dist

import (
	"math"
	"math/rand/v2"
	"sort"
)

// scalarDist is a distribution of numeric scalars, possibly restricted to a
// range. Implementations are immutable and safe for concurrent use; all
// randomness comes from the *rand.Rand passed in.
type scalarDist interface {
	// kind is KindInt or KindFloat.
	kind() Kind
	// support returns the smallest closed interval that holds every value
	// (infinite ends for unbounded distributions).
	support() (lo, hi float64)
	// restrict returns the distribution conditioned on lo ≤ X ≤ hi and the
	// probability of that event under this distribution. If the event is
	// empty or has probability zero, it returns (nil, 0).
	restrict(lo, hi float64) (scalarDist, float64)
	// float draws a value; an integer distribution converts its draw.
	float(r *rand.Rand) float64
	// int draws a value of an integer distribution. Float distributions
	// are never asked.
	int(r *rand.Rand) int64
}

// toInt converts f, a whole number, to int64, saturating at the ends.
func toInt(f float64) int64 {
	switch {
	case f >= 1<<63:
		return math.MaxInt64
	case f <= -(1 << 63):
		return math.MinInt64
	case f != f:
		return 0
	}
	return int64(f)
}

// intRange returns the integers in [lo, hi] intersected with [a, b], as
// floats (infinite ends allowed); empty reports lo > hi.
func intRange(lo, hi, a, b float64) (l, h float64, empty bool) {
	l = math.Max(math.Ceil(lo), a)
	h = math.Min(math.Floor(hi), b)
	return l, h, l > h
}

// finiteDist draws from a finite set of numbers: each value with its
// weight's share of the total, or all alike when weights is nil. A value
// may appear several times (empirical data), each counting by its weight.
type finiteDist struct {
	k       Kind
	floats  []float64 // every value
	ints    []int64   // every value, for KindInt
	weights []float64 // nil: all equal
	cum     []float64 // cumulative weights divided by their total; nil with weights
}

// newFinite returns the distribution of values (whole numbers when k is
// KindInt) with the given weights, which may be nil.
func newFinite(k Kind, values []float64, weights []float64) *finiteDist {
	d := &finiteDist{k: k, floats: values, weights: weights}
	if k == KindInt {
		d.ints = make([]int64, len(values))
		for i, v := range values {
			d.ints[i] = toInt(v)
		}
	}
	if weights != nil {
		total := 0.0
		for _, w := range weights {
			total += w
		}
		d.cum = make([]float64, len(weights))
		acc := 0.0
		for i, w := range weights {
			acc += w
			d.cum[i] = acc / total
		}
		d.cum[len(d.cum)-1] = 1
	}
	return d
}

func (d *finiteDist) kind() Kind { return d.k }

func (d *finiteDist) support() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, v := range d.floats {
		if d.weights != nil && d.weights[i] == 0 {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

func (d *finiteDist) restrict(lo, hi float64) (scalarDist, float64) {
	var vals, ws []float64
	kept, total := 0.0, 0.0
	for i, v := range d.floats {
		w := 1.0
		if d.weights != nil {
			w = d.weights[i]
		}
		total += w
		if lo <= v && v <= hi && w > 0 {
			vals = append(vals, v)
			ws = append(ws, w)
			kept += w
		}
	}
	if kept == 0 {
		return nil, 0
	}
	if d.weights == nil {
		ws = nil
	}
	return newFinite(d.k, vals, ws), kept / total
}

// pick returns the index of a value drawn by weight.
func (d *finiteDist) pick(r *rand.Rand) int {
	switch {
	case len(d.floats) == 1:
		return 0
	case d.cum == nil:
		return r.IntN(len(d.floats))
	}
	u := r.Float64()
	i := sort.Search(len(d.cum), func(i int) bool { return d.cum[i] > u })
	return min(i, len(d.cum)-1)
}

func (d *finiteDist) float(r *rand.Rand) float64 { return d.floats[d.pick(r)] }
func (d *finiteDist) int(r *rand.Rand) int64     { return d.ints[d.pick(r)] }
