// This file holds the vocabulary of the stopping rules (package stopping): where a
// block stands (State), the thresholds a rule works under, and its Decision.

package stats

import (
	"fmt"
	"math"
)

// State is where one block stands under the stopping rule.
type State uint8

const (
	// Unconverged: not decided yet; run more trials (or, when the budget is spent,
	// report how far the block is from converging: see Decision.Need).
	Unconverged State = iota
	// Converged: both conditions of Algorithm 1 hold; the mean is known to ±ε with
	// confidence γ.
	Converged
	// Constant: the block ran the same number of times in every trial (zero sample
	// variance); the CLT does not apply and the value is reported as is.
	Constant
	// Inadequate: the normal approximation cannot be certified within the trial
	// budget: the Berry–Esseen condition needs more trials than MaxTrials, as for a
	// block that almost never runs.
	Inadequate
	// Rare: the block ran in too few trials for the normal approximation of its
	// mean, and reaching enough would take more than the budget (or the user
	// declared blocks this rare unimportant, --ignore-rare). [RunProbability]
	// bounds the probability that it runs (Clopper–Pearson).
	Rare
	// Unseen: the block ran in none of the n trials. Its mean is not known, but the
	// probability that it runs is below 1 − (1 − γ)^{1/n} at confidence γ (≈ 3/n
	// at 95 %, the rule of three: [RuleOfThree]).
	Unseen
	// Exact: the trials drew every item of a finite population once
	// (Thresholds.Population), so the mean is the population's mean, with no
	// sampling error: x̄ ± 0.
	Exact
)

var stateNames = [...]string{"unconverged", "converged", "constant", "inadequate", "rare", "unseen", "exact"}

// Decided reports whether a block in state s no longer holds the run: every state
// but Unconverged.
func (s State) Decided() bool { return s != Unconverged }

// String returns the state's name as the JSON output spells it.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// BEMoment selects the third moment in the Berry–Esseen condition.
type BEMoment uint8

const (
	// AbsoluteMoment uses ρ̂ = Σ|x − x̄|³/(n−1), as the Berry–Esseen theorem
	// requires: the rigorous rule, and the default. Since ρ ≥ σ³ (Lyapunov), it
	// needs at least (C0/ε')² ≈ 9,017 trials at γ = 0.95 for any non-constant block.
	AbsoluteMoment BEMoment = iota
	// SignedMoment uses Σ(x − x̄)³/(n−1), as the paper's Algorithm 1 prints it. It
	// reproduces the paper's numbers (36 trials for Newton's method) but is NOT
	// rigorous: the signed moment is near zero for symmetric and negative for
	// left-skewed distributions, which passes the check trivially.
	SignedMoment
)

// String returns "absolute" or "signed".
func (m BEMoment) String() string {
	switch m {
	case AbsoluteMoment:
		return "absolute"
	case SignedMoment:
		return "signed"
	}
	return fmt.Sprintf("BEMoment(%d)", uint8(m))
}

// Thresholds are the tunables of the stopping rule. Start from [DefaultThresholds],
// set the precision, and make the rule with [NewRule].
type Thresholds struct {
	// Eps is the absolute precision ε: the half-width the mean must reach. When Eps
	// is 0, RelEps applies.
	Eps float64
	// RelEps is the relative precision: ε = RelEps·|x̄|. Used only when Eps is 0.
	RelEps float64
	// Gamma is the confidence γ, in (0, 1).
	Gamma float64
	// NMin is the paper's minimum: nothing is decided while n ≤ NMin (Algorithm 1,
	// step 2: "while n ≤ 30 keep running"). At least 1.
	NMin uint64
	// C0 is the Berry–Esseen constant: 0.4097… < C0 ≤ 0.4748 for i.i.d. variables
	// (I. G. Shevtsova, "On the absolute constants in the Berry–Esseen type
	// inequalities for identically distributed summands", arXiv:1111.6554, 2011).
	C0 float64
	// BELimit is the right-hand side ε' of the Berry–Esseen condition; 0 means the
	// paper's choice ε' = (1 − γ)/10.
	BELimit float64
	// Moment selects the third moment of the Berry–Esseen condition.
	Moment BEMoment
	// MaxTrials is the trial budget, used to declare a block Inadequate (or Rare);
	// 0 means no budget, and then no block is ever Inadequate.
	MaxTrials uint64
	// IgnoreRare, when positive, lets a block whose probability of running is below
	// it at confidence γ (the Clopper–Pearson upper bound, or the rule of three)
	// stop holding the run: it is reported Rare. Used by the rules of package
	// stopping, not by FreqSys's.
	IgnoreRare float64
	// Population, when positive, is the size N of the finite population the trials
	// draw from without replacement (dist.Model.FinitePopulation): every rule then
	// calls a block Exact at n = N, and the intervals that allow it carry the
	// finite-population correction (see package stopping's rules, FreqSys's
	// among them). 0: an infinite
	// population.
	Population uint64
}

// DefaultThresholds are the defaults: γ = 0.95, n_min = 30, C0 = 0.4748,
// ε' = (1 − γ)/10, the absolute moment, a budget of 10⁶ trials (100 times the
// 9,017-trial floor) and a relative precision of 1 %.
var DefaultThresholds = Thresholds{
	RelEps:    0.01,
	Gamma:     0.95,
	NMin:      30,
	C0:        0.4748,
	Moment:    AbsoluteMoment,
	MaxTrials: 1_000_000,
}

// Validate reports the first field of t that is out of range.
func (t Thresholds) Validate() error {
	switch {
	case !(t.Eps >= 0) || math.IsInf(t.Eps, 0):
		return fmt.Errorf("stats: precision eps = %v, want a finite value ≥ 0", t.Eps)
	case !(t.RelEps >= 0) || math.IsInf(t.RelEps, 0):
		return fmt.Errorf("stats: relative precision = %v, want a finite value ≥ 0", t.RelEps)
	case t.Eps == 0 && t.RelEps == 0:
		return fmt.Errorf("stats: no precision: set eps or the relative precision")
	case !(t.Gamma > 0 && t.Gamma < 1):
		return fmt.Errorf("stats: confidence gamma = %v, want 0 < gamma < 1", t.Gamma)
	case t.NMin < 1:
		return fmt.Errorf("stats: n_min = 0, want at least 1")
	case !(t.C0 > 0) || math.IsInf(t.C0, 0):
		return fmt.Errorf("stats: Berry–Esseen constant C0 = %v, want a finite value > 0", t.C0)
	case !(t.BELimit >= 0 && t.BELimit < 1):
		return fmt.Errorf("stats: Berry–Esseen limit = %v, want 0 (default) or a value in (0, 1)", t.BELimit)
	case !(t.IgnoreRare >= 0 && t.IgnoreRare < 1):
		return fmt.Errorf("stats: rare-block level = %v, want a probability in [0, 1)", t.IgnoreRare)
	case t.Moment > SignedMoment:
		return fmt.Errorf("stats: unknown Berry–Esseen moment %v", t.Moment)
	}
	return nil
}

// Limit returns ε', the right-hand side of the Berry–Esseen condition: BELimit, or
// (1 − γ)/10 (the paper's example choice) when BELimit is 0.
func (t Thresholds) Limit() float64 {
	if t.BELimit > 0 {
		return t.BELimit
	}
	return (1 - t.Gamma) / 10
}

// Quantile returns u = u_{(1+γ)/2}, the normal quantile of the two-sided interval.
func (t Thresholds) Quantile() float64 { return NormalCoefficient(t.Gamma) }

// Decision is the stopping rule's verdict on one block, with everything a report
// needs to explain it. Fields that need two trials or a non-zero variance are NaN
// without them.
type Decision struct {
	State State
	N     uint64
	Mean  float64
	// StdDev is s = √(M2/(n−1)).
	StdDev float64
	// U is the quantile u_{(1+γ)/2}.
	U float64
	// Eps is the absolute precision asked for: Thresholds.Eps, or RelEps·|x̄|.
	Eps float64
	// HalfWidth is u·s/√n: the mean is x̄ ± HalfWidth at confidence γ (once
	// Converged, HalfWidth < ε).
	HalfWidth float64
	// Lo and Hi are the interval of the mean: x̄ ∓ HalfWidth for the symmetric
	// intervals, or the exact binomial interval of a block that runs at most once
	// per trial (then HalfWidth is max(Hi − x̄, x̄ − Lo)). NaN when undefined.
	Lo, Hi float64
	// Ran is the number of trials in which the block ran ([RunProbability] bounds
	// the probability that it runs).
	Ran uint64
	// ProbLo and ProbHi are set (else NaN) for the states that bound a probability:
	// for Unseen and Rare the interval of the probability that the block runs
	// (rule of three, Clopper–Pearson), for Constant ProbHi bounds the probability
	// of any other count (rule of three).
	ProbLo, ProbHi float64
	// BE is the Berry–Esseen bound C0·m3/(s³√n), with m3 the moment that
	// Thresholds.Moment selects; BELimit is ε'.
	BE      float64
	BELimit float64
	// NeedCLT is the smallest n with n > (u/ε)²·s², and NeedBE the smallest n with
	// C0·m3/(s³√n) ≤ ε', i.e. ⌈(C0·m3/(s³ε'))²⌉ (0 when m3 ≤ 0), both at the current
	// estimates of s and m3. Need is the largest of them and n_min + 1: a projection
	// of the trials the block needs ("needs ~9,000 trials").
	NeedCLT float64
	NeedBE  float64
	Need    float64
	// Events is k = n·s⁶/ρ̂², the Berry–Esseen effective number of events, with ρ̂
	// the absolute moment: the absolute-moment bound is C0/√k and needs
	// (C0/ε')²·n/k trials. For a fixed distribution k grows like n/(ρ/σ³)²; for a
	// block that ran in one trial out of n, k ≈ 1 whatever n, so the trials needed
	// grow in proportion to n: FreqSys's rare-block case.
	Events float64
}
