// This file implements stratified sampling of a finite population: the
// stratified mean with its variance, the allocation of the draws among the
// strata, and the stopping rule on them.

package stopping

import (
	"math"

	"github.com/fragprof/fragprof/internal/stats"
)

// A Stratum is one stratum of a finite population: its size N_h and the summary
// of the counts of the n_h items drawn from it without replacement.
type Stratum struct {
	Size uint64
	S    stats.Summary
}

// stratifiedMean returns the stratified estimate of the population's mean, its
// variance and the effective degrees of freedom of that variance: with
// W_h = N_h/N, f_h = n_h/N_h and s_h² the sample variance of stratum h,
//
//	ȳ_st = Σ W_h ȳ_h,   v(ȳ_st) = Σ W_h² (s_h²/n_h)(1 − f_h),
//	ν = v² / Σ g_h² s_h⁴/(n_h − 1),   g_h = W_h²(1 − f_h)/n_h
//
// (W. G. Cochran, "Sampling Techniques", 3rd ed., Wiley 1977, §5.2, Theorem 5.3
// and eq. 5.6; ν by Satterthwaite's approximation, §5.4, eq. 5.16). A stratum
// drawn whole (n_h = N_h) adds no variance. sd, when not nil, gives the standard
// deviation to use for each stratum instead of the sample's (a conservative one).
// Every stratum needs n_h ≥ 1, and n_h ≥ 2 unless drawn whole. Without fpc there is
// no finite-population correction (f_h = 0, no stratum whole).
func stratifiedMean(strata []Stratum, sd func(h int) float64, fpc bool) (mean, variance, df float64) {
	var N float64
	for _, st := range strata {
		N += float64(st.Size)
	}
	var den float64
	for h, st := range strata {
		w := float64(st.Size) / N
		n := float64(st.S.N)
		mean += w * st.S.Mean
		f := n / float64(st.Size)
		if !fpc {
			f = 0
		} else if st.S.N >= st.Size {
			continue
		}
		s := st.S.StdDev()
		if sd != nil {
			s = sd(h)
		}
		g := w * w * (1 - f) / n
		variance += g * s * s
		den += g * g * s * s * s * s / (n - 1)
	}
	df = math.Inf(1)
	if den > 0 {
		df = variance * variance / den
	}
	return mean, variance, df
}

// Stratified is the default rule ([CLT]) for a stratified sample: after each draw,
// with every stratum holding at least two draws (or drawn whole) and more than
// n_min draws in all, a block is Converged when
//
//	t·√v(ȳ_st) ≤ ε,
//
// t Student's quantile at 1 − α/2 two-sided (the default rule's level) with the
// effective degrees of freedom ν (stratifiedMean), and each stratum's s_h taken,
// as the default rule does, on its draws with one more as large as its largest
// (a stratum whose rare large counts have not shown yet understates its
// variance), and guarded as the default rule is: the skewness term of the
// Edgeworth expansion of the interval's coverage, [SkewError] at the skewness of
// the stratified mean (stratifiedSkewness), is at most α/10. Every stratum
// carries its own finite-population correction, and a
// block is Exact when every stratum is drawn whole. The strata are what the
// sampler knows before any trial (a directory, a size class): a rare class of
// items that is a stratum of its own is drawn from the start, where a simple
// random sample may stop before drawing it.
type Stratified struct {
	base
	// Infinite, when set, says that each stratum's trials draw other inputs at
	// random besides its item: a stratum is then an infinite population, its size
	// only its weight W_h; no correction, never exact.
	Infinite bool
}

// NewStratified returns the rule under t (t.Population is not used: the strata
// give the sizes). The strata are drawn as package dist's Schedule draws them,
// in proportion to their sizes or by Neyman's allocation.
func NewStratified(t stats.Thresholds) (*Stratified, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &Stratified{base: base{t: t, alpha: 1 - t.Gamma, level: 1 - (1-t.Gamma)/2, u: stats.NormalCoefficient(t.Gamma)}}, nil
}

// Decide judges a block from its strata.
func (r *Stratified) Decide(strata []Stratum) stats.Decision {
	nan := math.NaN()
	var n, N uint64
	whole, ready := true, true
	for _, st := range strata {
		n += st.S.N
		N += st.Size
		if r.Infinite {
			whole = false
			if st.S.N < max(2, min(PilotDraws, st.Size)) {
				ready = false
			}
		} else if st.S.N < st.Size {
			whole = false
			if st.S.N < PilotDraws {
				ready = false
			}
		}
	}
	d := stats.Decision{N: n, U: r.u, StdDev: nan, Eps: nan, HalfWidth: nan, Lo: nan, Hi: nan, BE: nan, BELimit: nan,
		NeedCLT: nan, NeedBE: nan, Events: nan, ProbLo: nan, ProbHi: nan, Need: float64(r.t.NMin + 1)}
	if !ready && !whole {
		return d
	}
	mean, v, df := stratifiedMean(strata, func(h int) float64 {
		s := strata[h].S
		return s.With(float64(s.Max)).StdDev()
	}, !r.Infinite)
	d.Mean, d.StdDev = mean, math.Sqrt(v*float64(n))
	d.Eps = r.t.Eps
	if d.Eps == 0 {
		d.Eps = r.t.RelEps * math.Abs(mean)
	}
	if whole {
		d.State, d.Need, d.HalfWidth, d.Lo, d.Hi = stats.Exact, float64(n), 0, mean, mean
		return d
	}
	k := stats.NormalCoefficient(1 - r.alpha/2)
	if !math.IsInf(df, 1) {
		k = stats.StudentQuantile(1-r.alpha/4, max(df, 1))
	}
	hw := k * math.Sqrt(v)
	d.HalfWidth, d.Lo, d.Hi = hw, mean-hw, mean+hw
	// The variance falls about like 1/n: n₀ = n·(hw/ε)², with the correction.
	d.Need = math.Ceil(float64(n) * (hw / d.Eps) * (hw / d.Eps))
	if !r.Infinite {
		d.Need = math.Min(FiniteNeed(d.Need, N), float64(N))
	}
	if n > r.t.NMin && hw <= d.Eps && SkewError(k, stratifiedSkewness(strata, v, !r.Infinite), 1) <= r.alpha/10 {
		d.State, d.Need = stats.Converged, float64(n)
	}
	return d
}

// stratifiedSkewness returns the skewness of the stratified mean, κ₃/v^{3/2},
// with κ₃ = Σ W_h³ m₃_h/n_h² the third central moment of a stratified mean of
// independent draws and m₃_h each stratum's third central moment on its draws
// with one more as large as its largest. It is the g₁/√n that the default rule's
// guard [SkewError] reads, for the stratified mean. Like that guard it ignores
// the finite population (drawing without replacement makes the mean less skewed,
// by (1 − f_h)(1 − 2f_h) to first order): the laboratory measured a coverage of
// 0.934 on the skewed world under proportional allocation with that factor.
// Without fpc (an infinite population in each stratum) every stratum counts.
func stratifiedSkewness(strata []Stratum, v float64, fpc bool) float64 {
	if v <= 0 {
		return 0
	}
	N := float64(sizes(strata))
	var k3 float64
	for _, st := range strata {
		if fpc && st.S.N >= st.Size || st.S.N == 0 {
			continue // drawn whole, or (without the correction) not drawn yet
		}
		w, n := float64(st.Size)/N, float64(st.S.N)
		s := st.S.With(float64(st.S.Max))
		k3 += w * w * w * (s.M3 / float64(s.N)) / (n * n)
	}
	return k3 / math.Pow(v, 1.5)
}

// PilotDraws is the number of draws every stratum needs (or all its items, if
// fewer) before the rule judges a block, the pilot of dist.Schedule: with
// fewer, a stratum whose draws happen to be equal looks constant, adds no
// variance, and, under Neyman's allocation, is seldom drawn again (the
// laboratory measured a coverage of 0.70 at γ = 0.95 on the skewed world with
// two).
const PilotDraws = 10

// NeymanSD returns each stratum's standard deviation for Neyman's allocation
// (dist.Schedule.Plan): on its draws with one more as large as its largest, as
// the rule reads it, so that a stratum whose rare large counts have not shown
// yet is not starved of draws.
func NeymanSD(strata []Stratum) []float64 {
	sd := make([]float64, len(strata))
	for h, st := range strata {
		sd[h] = st.S.With(float64(st.S.Max)).StdDev()
	}
	return sd
}

// sizes returns the population's size, the sum of the strata's.
func sizes(strata []Stratum) uint64 {
	var N uint64
	for _, st := range strata {
		N += st.Size
	}
	return N
}
