// This file holds FreqSys's stopping rule (the FreqSys paper's Algorithm 1): the
// CLT condition with a Berry–Esseen bound on the normal approximation.

package stopping

import (
	"math"

	"github.com/fragprof/fragprof/internal/stats"
)

// FreqSys is FreqSys's stopping rule under fixed, validated Thresholds, with the
// quantile u and the limit ε' worked out once. A FreqSys is immutable and safe for
// concurrent use.
type FreqSys struct {
	t     stats.Thresholds
	u     float64
	limit float64
}

// NewFreqSys validates t and returns its rule.
func NewFreqSys(t stats.Thresholds) (*FreqSys, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &FreqSys{t: t, u: t.Quantile(), limit: t.Limit()}, nil
}

// Thresholds returns the rule's thresholds.
func (r *FreqSys) Thresholds() stats.Thresholds { return r.t }

// Name returns "freqsys-absolute" or "freqsys-signed".
func (r *FreqSys) Name() string { return "freqsys-" + r.t.Moment.String() }

// MinTrials returns the smallest n at which a non-constant block can be Converged.
// Under the signed moment it is n_min + 1. Under the absolute moment the sample
// satisfies ρ̂/ŝ³ ≥ √((n−1)/n) (Lyapunov's inequality Σ|y|³/n ≥ (Σy²/n)^{3/2} for the
// empirical distribution), so with F = (C0/ε')² the Berry–Esseen condition needs
// n ≥ F·(n−1)/n, i.e. n ≥ (F + √(F² − 4F))/2: 9,017 at the defaults. Checking the
// rule before MinTrials is wasted work; skipping those checks changes nothing.
func (r *FreqSys) MinTrials() uint64 {
	n := float64(r.t.NMin + 1)
	if r.t.Moment == stats.AbsoluteMoment {
		f := (r.t.C0 / r.limit) * (r.t.C0 / r.limit)
		if f > 4 {
			n = max(n, math.Ceil((f+math.Sqrt(f*f-4*f))/2))
		}
	}
	return uint64(n)
}

// Decide applies FreqSys's stopping rule (Algorithm 1, with the absolute third
// moment) to the summary of one block's counts. With n trials, s² = M2/(n−1),
// m3 = Σ|x − x̄|³/(n−1) (or the signed Σ(x − x̄)³/(n−1) under SignedMoment),
// u = u_{(1+γ)/2} and ε' = Thresholds.Limit():
//
//   - n ≤ n_min: Unconverged;
//   - s² = 0: Constant;
//   - n > (u/ε)²·s²  and  C0·m3/(s³√n) ≤ ε': Converged (the CLT interval
//     x̄ ± u·s/√n is within ±ε, and the Berry–Esseen theorem bounds the error of the
//     normal approximation to the distribution of the mean by ε');
//   - NeedBE > MaxTrials > 0: Inadequate. NeedBE = (C0/ε')²·n/Events, so this says
//     that the effective events seen so far, extrapolated linearly to the budget,
//     fall short of the (C0/ε')² that the Berry–Esseen bound needs. Since every
//     sample has ρ̂/ŝ³ ≤ (n−1)/√n, NeedBE < (C0/ε')²·n: the test cannot fire before
//     n ≈ MaxTrials/9,017 at γ = 0.95. A block run once in n trials comes close to
//     that extreme (NeedBE ≈ 9,017·n) and is declared Inadequate from n = 115 with a
//     budget of 10⁶;
//   - otherwise Unconverged.
//
// Under the absolute moment the bound is rigorous but sample-based: it uses the
// estimates s and ρ̂ in place of σ and ρ, as the paper does. For a coarse CountDist
// Summary.Abs3 is an upper bound, which keeps the rule conservative.
//
// On a finite population of N items drawn without replacement (Thresholds.Population)
// the CLT condition carries the finite-population correction, Var(x̄) = (s²/n)(1 − n/N)
// (W. G. Cochran, "Sampling Techniques", 3rd ed., Wiley 1977, §2.4, Theorem 2.2):
// the half-width is u·s/√n·√(1 − n/N), the condition n > (u/ε)²·s²·(1 − n/N), and
// NeedCLT = ⌈n₀/(1 + n₀/N)⌉ with n₀ the infinite population's (§4.4); at n = N
// every block is Exact. The Berry–Esseen condition is kept as for independent
// draws: for sampling without replacement the bound has n(1 − n/N) in place of n
// and a constant of its own (B. Höglund, "Sampling from a finite population. A
// remainder term estimate", Scand. J. Statist. 5(1), 1978), which the paper does
// not give.
func (r *FreqSys) Decide(s stats.Summary) stats.Decision {
	t := r.t
	nan := math.NaN()
	d := stats.Decision{
		N: s.N, Mean: s.Mean, U: r.u, BELimit: r.limit,
		StdDev: nan, Eps: nan, HalfWidth: nan, BE: nan, NeedCLT: nan, NeedBE: nan, Events: nan,
	}
	d.Need = float64(t.NMin + 1)
	d.Lo, d.Hi, d.Ran, d.ProbLo, d.ProbHi = nan, nan, s.Ran(), nan, nan
	if s.N < 2 {
		return d
	}
	n := float64(s.N)
	d.Eps = t.Eps
	if d.Eps == 0 {
		d.Eps = t.RelEps * math.Abs(s.Mean)
	}
	d.StdDev = s.StdDev()
	if N := t.Population; N > 0 && s.N == N {
		// Every item drawn once: the population's mean itself.
		d.State, d.Need, d.NeedCLT, d.NeedBE = stats.Exact, n, n, 0
		d.HalfWidth, d.Lo, d.Hi = 0, s.Mean, s.Mean
		return d
	}
	fpc2 := 1.0 // the squared finite-population correction, 1 − n/N
	if N := t.Population; N > 0 && s.N < N {
		fpc2 = 1 - n/float64(N)
	}
	d.HalfWidth = d.U * d.StdDev / math.Sqrt(n) * math.Sqrt(fpc2)
	d.Lo, d.Hi = d.Mean-d.HalfWidth, d.Mean+d.HalfWidth
	if s.M2 == 0 {
		d.NeedCLT, d.NeedBE = 0, 0
		if s.N > t.NMin {
			d.State = stats.Constant
		}
		return d
	}

	cltBound := (d.U / d.Eps) * (d.U / d.Eps) * d.StdDev * d.StdDev
	d.NeedCLT = math.Floor(cltBound) + 1
	if N := t.Population; N > 0 {
		d.NeedCLT = math.Ceil(d.NeedCLT / (1 + d.NeedCLT/float64(N)))
	}

	m3 := s.AbsThird()
	if t.Moment == stats.SignedMoment {
		m3 = s.Third()
	}
	s3 := d.StdDev * d.StdDev * d.StdDev
	d.BE = t.C0 * m3 / (s3 * math.Sqrt(n))
	d.NeedBE = 0
	if m3 > 0 {
		q := t.C0 * m3 / (s3 * d.BELimit)
		d.NeedBE = math.Ceil(q * q)
	}
	if rho := s.AbsThird(); rho > 0 {
		d.Events = n * (s3 / rho) * (s3 / rho)
	}
	d.Need = max(d.Need, d.NeedCLT, d.NeedBE)

	switch {
	case s.N <= t.NMin:
		d.State = stats.Unconverged
	case n > cltBound*fpc2 && d.BE <= d.BELimit:
		d.State = stats.Converged
	case t.MaxTrials > 0 && d.NeedBE > float64(t.MaxTrials) && d.BE > d.BELimit:
		d.State = stats.Inadequate
	default:
		d.State = stats.Unconverged
	}
	return d
}
