// Package conformal gives the predictor that model build chooses (package
// selection) an interval whose coverage is measured, not assumed, from the errors
// of its cross-validated predictions.
//
// The interval is a cross-conformal prediction interval (the CV+ of Barber, Candès,
// Ramdas & Tibshirani, "Predictive inference with the jackknife+", Ann. Statist.
// 49(1), 2021, with normalised scores as in Lei et al., "Distribution-free
// predictive inference for regression", JASA 113, 2018) for the model's error,
// combined with the run-to-run noise. The model's error at a held-out point p is
// e_p = ln(m_p / ŷ_p), m_p the median of its runs; its score s_p = |e_p| / (1 +
// c·log₂ f_p), f_p ≥ 1 the factor by which p lies beyond the fold's training range;
// Q is the ⌈(1 − α)(n + 1)⌉-th smallest of the n scores. c, the widening per
// doubling beyond the range, is the least-squares slope through the origin of
// |e_p|/a − 1 against log₂ f_p over the held-out points that lay beyond their
// fold's training range (f_p > 1.01), a the mean |e_p| of those inside it
// (f_p ≤ 1), whichever kind of fold held them out; clamped to [0.1, 2], and 0.5
// when either set is empty or the errors inside are all 0. A single run's interval
// at an input f× beyond the range is ŷ·e^(±h), h = √(h_m² + h_n²): h_m =
// Q·(1 + c·log₂ f) the model's part,
// h_n the 90% quantile of |ln(t / median)| over the runs of the nearest training
// input — the run-to-run noise, which does not grow with the extrapolation. (Two
// independent errors' 90% quantiles add in quadrature when they are normal.)
package conformal

import (
	"math"
	"sort"
)

// Level is the coverage the intervals aim at.
const Level = 0.9

// An Interval is a cross-conformal interval: ŷ·[e^−h, e^h] with h the hypotenuse of
// Q·(1 + Widen·log₂ f), the model's error, and the run-to-run noise of the nearest
// training input.
type Interval struct {
	Level  float64   `json:"level"`
	Q      float64   `json:"q"`
	Widen  float64   `json:"widen"`
	Scores int       `json:"scores"` // held-out points behind Q
	Noise  []NoiseAt `json:"noise,omitempty"`
}

// NoiseAt is the run-to-run noise of one training input point: the 90% quantile of
// |ln(t / median)| over its runs.
type NoiseAt struct {
	Inputs []float64 `json:"inputs"`
	Q      float64   `json:"q"`
}

// HalfWidth returns h for an input at extrapolation factor f.
func (c *Interval) HalfWidth(in []float64, f float64) float64 {
	return math.Hypot(c.Q*(1+c.Widen*math.Log2(math.Max(f, 1))), c.NearestNoise(in))
}

// NearestNoise is the noise of the training point nearest to in (distance of the
// logarithms of positive inputs, of the values otherwise).
func (c *Interval) NearestNoise(in []float64) float64 {
	best, q := math.Inf(1), 0.0
	for _, p := range c.Noise {
		var d float64
		for k := range in {
			if k >= len(p.Inputs) {
				break
			}
			a, b := in[k], p.Inputs[k]
			if a > 0 && b > 0 {
				a, b = math.Log(a), math.Log(b)
			}
			d += (a - b) * (a - b)
		}
		if d < best {
			best, q = d, p.Q
		}
	}
	return q
}

// An Error is one cross-validated prediction of a held-out point: E = ln(m / ŷ), m
// the median of the point's runs (LogRatio), and Factor ≥ 1 the factor by which the
// point lies beyond the training range of the fold that predicted it (1 inside).
type Error struct {
	E      float64
	Factor float64
}

// A Point is a training input point: its inputs, the times of its runs and their
// median.
type Point struct {
	Inputs []float64
	Times  []float64
	Median float64
}

// Fit computes the interval of a predictor from its cross-validated errors and the
// runs of the training points (see the package comment).
func Fit(errs []Error, pts []Point) Interval {
	out := Interval{Level: Level, Widen: 0.5}
	var a float64
	var na int
	for _, r := range errs {
		if r.Factor <= 1 {
			a += math.Abs(r.E)
			na++
		}
	}
	if na > 0 && a > 0 {
		a /= float64(na)
		var sxy, sxx float64
		for _, r := range errs {
			if r.Factor <= 1.01 {
				continue
			}
			L := math.Log2(r.Factor)
			sxy += (math.Abs(r.E)/a - 1) * L
			sxx += L * L
		}
		if sxx > 0 {
			out.Widen = math.Min(2, math.Max(0.1, sxy/sxx))
		}
	}
	var scores []float64
	for _, r := range errs {
		scores = append(scores, math.Abs(r.E)/(1+out.Widen*math.Log2(math.Max(r.Factor, 1))))
	}
	out.Scores = len(scores)
	if len(scores) > 0 {
		out.Q = Quantile(scores)
	}
	for _, p := range pts {
		if len(p.Times) < 3 {
			continue
		}
		dev := make([]float64, len(p.Times))
		for i, t := range p.Times {
			dev[i] = math.Abs(LogRatio(t, p.Median))
		}
		sort.Float64s(dev)
		k := int(math.Ceil(Level*float64(len(dev)))) - 1
		out.Noise = append(out.Noise, NoiseAt{Inputs: p.Inputs, Q: dev[max(k, 0)]})
	}
	return out
}

// Quantile is the split-conformal quantile of the scores x at Level: the
// ⌈Level·(n+1)⌉-th smallest of the n (Vovk, Gammerman & Shafer, "Algorithmic
// Learning in a Random World", 2005; Lei et al., JASA 2018), or the largest when
// n is too small for that rank. It sorts x in place; x must not be empty.
func Quantile(x []float64) float64 {
	sort.Float64s(x)
	k := int(math.Ceil(Level*float64(len(x)+1))) - 1
	return x[min(k, len(x)-1)]
}

// LogRatio is ln(t / y), 10 when y is not positive (a prediction of no time).
func LogRatio(t, y float64) float64 {
	if !(y > 0) || !(t > 0) {
		return 10
	}
	return math.Log(t / y)
}
