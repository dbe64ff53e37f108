// This file implements the judgement of blocks whose trials were drawn in Latin
// hypercube units.

package stopping

import (
	"fmt"

	"github.com/fragprof/fragprof/internal/stats"
)

// Units judges blocks whose trials were drawn in Latin hypercube units of M
// consecutive trials (package dist, Sample.SetUnit): every trial keeps the input
// distribution, so every mean stays unbiased, but the trials of a unit are
// negatively correlated where a count depends on the stratified inputs. The units
// are independent and identically distributed, so the sums of a block's counts
// over the complete units are a sample the rule can judge as it judges single
// trials, with ε·M: a variance the design reduced gives a narrower interval (M. D.
// McKay, R. J. Beckman and W. J. Conover, Technometrics 21(2), 1979; M. Stein,
// Technometrics 29(2), 1987, for the variance of the Latin hypercube mean).
//
// Decide takes both the per-trial summary and the units' summary:
//
//   - a block that never ran or ran the same number of times in every trial keeps
//     the per-trial decision (the rule of three), and so does every block at
//     n = N on a finite population, where the per-trial decision is Exact (the
//     units' sums, which leave out a last incomplete unit, would judge fewer
//     trials than the population's);
//   - otherwise it converges when the rule converges on the units' sums (the
//     interval put back on the scale of one trial), or, failing that, on the
//     trials taken as independent (for a block that runs at most once per trial,
//     the Clopper–Pearson interval; while open, such a block keeps the per-trial
//     decision, Rare included). A Latin hypercube sample of n is never less
//     precise than n − 1 independent trials (A. B. Owen, "Monte Carlo variance of
//     scrambled net quadrature", SIAM J. Numer. Anal. 34(5), 1997), so the
//     per-trial interval is at worst √(16/15) ≈ 1.03 times too narrow in units
//     of 16 (within the margin of the default rule's quantile at 1 − α/2), and
//     conservative wherever the design helps; it decides the blocks whose units are
//     still below the rule's n_min (a cheap block, such as Newton's loop at ±0.3,
//     converges after 42 trials, not 31 units of 16). Two ways to converge could
//     add their errors; the coverage laboratory (package lab, RunDesign) measures
//     the combination on every model, with the rare and heavy-tailed ones.
//
// A block still open is reported with the units' interval and projection; when it
// is Rare on the units, with the per-trial bounds on how often it runs.
type Units struct {
	Trial, Unit Rule
	M           uint64
}

// NewUnits returns the judge of units of m trials under rule r: r for the trials,
// and r made again with ε·m (an absolute precision) and the budget in units.
func NewUnits(r Rule, m uint64) (*Units, error) {
	if m < 2 {
		return nil, fmt.Errorf("stopping: a unit of %d trials", m)
	}
	t := r.Thresholds()
	t.Eps *= float64(m)
	t.MaxTrials = max(1, t.MaxTrials/m)
	// The sums of units of a finite population are not a sample without
	// replacement of N items: they are judged as from an infinite population
	// (wider); the trials keep the correction.
	t.Population = 0
	u, err := New(r.Name(), t)
	if err != nil {
		return nil, fmt.Errorf("stopping: the rule for units: %v", err)
	}
	return &Units{Trial: r, Unit: u, M: m}, nil
}

// Decide judges a block from its per-trial summary s and the summary us of its
// counts summed over each complete unit.
func (j *Units) Decide(s, us stats.Summary) stats.Decision {
	d := j.Trial.Decide(s)
	if d.State == stats.Unseen || d.State == stats.Constant || d.State == stats.Exact || us.N < 2 {
		return d
	}
	u := j.Unit.Decide(us)
	m := float64(j.M)
	u.N = us.N * j.M
	u.Mean, u.Eps, u.HalfWidth, u.Lo, u.Hi = u.Mean/m, u.Eps/m, u.HalfWidth/m, u.Lo/m, u.Hi/m
	u.Need *= m
	u.StdDev, u.Ran = d.StdDev, d.Ran
	switch {
	case u.State == stats.Converged:
		return u
	case d.State == stats.Converged || s.Indicator() || u.State == stats.Constant:
		// Constant sums of counts that vary (a count the design stratifies
		// exactly, such as uniform_int(8, 11) in units of 16) say that other sums
		// are rare, not what they would be: the trials decide.
		return d
	case u.State == stats.Rare:
		u.ProbLo, u.ProbHi = d.ProbLo, d.ProbHi
		if d.State != stats.Rare {
			lvl := 1 - (1-j.Trial.Thresholds().Gamma)/2
			u.ProbLo, u.ProbHi = stats.RunProbability(d.Ran, d.N, lvl)
		}
	}
	return u
}
