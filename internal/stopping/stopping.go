// Package stopping holds the stopping rules of fragprof freq behind one small
// interface: given the summary of one block's per-trial counts, is its expected
// count known to ±ε with confidence γ?
//
// The rules ([Names]):
//
//   - "clt" (the default): Student's t interval x̄ ± t·s/√n at confidence
//     1 − (1 − γ)/2, checked after every trial (Chow & Robbins 1965), on the sample
//     with one more trial at its largest count, guarded by the Edgeworth skewness
//     term of its coverage (Hall 1992; Cochran's rule, Sugden, Smith & Jones 2000)
//     with the confidence sequence below while the guard fails, and exact binomial
//     intervals (Clopper & Pearson 1934) for blocks that run at most once per trial;
//   - "anytime": an asymptotic confidence sequence (Waudby-Smith, Arnold, Wu, Howard
//     & Ramdas 2024), valid at every n at once, so also when the run is stopped at a
//     moment chosen by looking at the data (Ctrl-C, --max-time);
//   - "bernstein": an empirical-Bernstein bound (Maurer & Pontil 2009) with the
//     observed range, made time-uniform by a union bound over n;
//   - "freqsys-absolute" and "freqsys-signed": FreqSys's Algorithm 1 (CLT and
//     Berry–Esseen, [FreqSys]), for reproducing the paper.
//
// Rules differ in how they take a block's interval; they share how they treat the
// blocks a normal approximation cannot serve: a block that never ran is [stats.Unseen]
// (it runs in fewer than 1 − (1 − γ)^{1/n} ≈ 3/n of executions: the rule of three),
// one that ran the same number of times in every trial [stats.Constant], and one that
// ran in too few trials to be decided within the budget (or whose probability of
// running is below --ignore-rare) [stats.Rare], with the Clopper–Pearson interval of
// its probability of running.
//
// On a finite population of N items drawn without replacement
// (stats.Thresholds.Population) every rule calls a block [stats.Exact] at n = N,
// and the intervals carry the finite-population correction where it is known to
// hold: the default rule's t interval ([FPC]), the exact interval of a block that
// runs at most once per trial (hypergeometric instead of binomial:
// [stats.Hypergeometric], also for the bounds of how often a Rare block runs),
// FreqSys's CLT condition
// ([FreqSys.Decide]) and the Bernstein bound (Bardenet & Maillard's
// Bernstein–Serfling inequality, [SerflingRadius]). The anytime rule, and the
// default rule's fallback for skewed counts, keep the infinite population's
// confidence sequence, which is wider: sampling without replacement is less
// spread than with it in the convex order (W. Hoeffding, J. Amer. Statist. Assoc.
// 58, 1963, Theorem 4); the laboratory measured what the correction costs there
// ([CLT]).
//
// The coverage laboratory (package lab) measures every rule: it replicates the whole
// sequential procedure on populations of known mean and compares the trials each
// rule spends with the least fixed number of trials that would have covered.
package stopping

import (
	"fmt"
	"math"
	"strings"

	"github.com/fragprof/fragprof/internal/stats"
)

// A Rule decides, from the summary of one block's per-trial counts, where the block
// stands. Rules are immutable and safe for concurrent use.
type Rule interface {
	// Name is the rule's name as --rule spells it.
	Name() string
	// Thresholds are the precision, confidence and budget the rule was made with.
	Thresholds() stats.Thresholds
	// MinTrials is the least n at which a block that varies can converge; checking
	// the rule before it is wasted work.
	MinTrials() uint64
	// Decide returns the rule's verdict on a block.
	Decide(s stats.Summary) stats.Decision
}

// Default is the name of the default rule.
const Default = "clt"

// Names lists the rules New knows, the default first.
var Names = []string{"clt", "anytime", "bernstein", "freqsys-absolute", "freqsys-signed"}

// AnytimeValid reports whether the intervals of the named rule hold at every n at
// once — so whenever and however the run is stopped, by the rule, by --max-time, or
// by a person watching the estimates — rather than only at a stopping time the rule
// chose or at a number of trials fixed in advance. "anytime" holds asymptotically
// (as the number of trials grows; Waudby-Smith et al. 2024, Theorem 2.2),
// "bernstein" exactly for counts within the observed range.
func AnytimeValid(name string) bool { return name == "anytime" || name == "bernstein" }

// New returns the named rule under the thresholds t. For the FreqSys rules t.Moment
// is set from the name.
func New(name string, t stats.Thresholds) (Rule, error) {
	switch name {
	case "freqsys-absolute", "freqsys-signed":
		t.Moment = stats.AbsoluteMoment
		if name == "freqsys-signed" {
			t.Moment = stats.SignedMoment
		}
		return NewFreqSys(t)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	b := base{t: t, alpha: 1 - t.Gamma, level: 1 - (1-t.Gamma)/2, u: stats.NormalCoefficient(t.Gamma)}
	switch name {
	case "clt":
		return &CLT{base: b}, nil
	case "clt-plain":
		return &CLT{base: b, Plain: true}, nil
	case "clt-gamma": // the laboratory's: the guarded rule with the quantile at γ
		return &CLT{base: b, Level: t.Gamma}, nil
	case "clt-naive": // the laboratory's: the guarded rule on the sample alone
		return &CLT{base: b, Naive: true}, nil
	case "clt-wide-fpc": // the laboratory's: the fallback with the population's correction
		return &CLT{base: b, WideFPC: true}, nil
	case "anytime":
		return newAnytime(b, AnytimeTarget), nil
	case "bernstein":
		return &Bernstein{base: b}, nil
	}
	return nil, fmt.Errorf("stopping: unknown rule %q (want %s)", name, strings.Join(Names, ", "))
}

// base holds what every rule shares: the thresholds, and the treatment of blocks
// that never ran, ran a constant number of times, or run at most once per trial.
//
// Every statement these make is made at confidence level = 1 − α/2, α = 1 − γ: a
// block is either decided early by showing no variation (Unseen, Constant: a bound
// at level on how often it differs) or later by an interval (at level too, for
// the default rule), and by the union bound the chance that what is reported about
// it is wrong is at most α/2 + α/2 = α. The laboratory showed why: a branch taken in
// 90 % of trials runs in all of the first 31 in 3.8 % of runs, which, added to the
// interval's own misses, brought the coverage at γ to 0.92.
type base struct {
	t     stats.Thresholds
	alpha float64
	level float64
	u     float64 // stats.NormalCoefficient(t.Gamma), computed once: Decide runs per block per check
}

func (b *base) Thresholds() stats.Thresholds { return b.t }
func (b *base) MinTrials() uint64            { return b.t.NMin + 1 }

// start fills the fields every rule reports and decides the cases every rule
// shares. It returns done = true when the decision is complete.
func (b *base) start(s stats.Summary) (d stats.Decision, done bool) {
	nan := math.NaN()
	t := b.t
	d = stats.Decision{
		N: s.N, Mean: s.Mean, U: b.u, Ran: s.Ran(),
		StdDev: nan, Eps: nan, HalfWidth: nan, Lo: nan, Hi: nan, BE: nan, BELimit: nan,
		NeedCLT: nan, NeedBE: nan, Events: nan, Need: float64(t.NMin + 1),
	}
	if s.N < 2 {
		return d, true
	}
	d.Eps = t.Eps
	if d.Eps == 0 {
		d.Eps = t.RelEps * math.Abs(s.Mean)
	}
	d.StdDev = s.StdDev()
	if t.Population > 0 && s.N == t.Population {
		// Every item drawn once: the population's mean itself.
		d.State, d.Need = stats.Exact, float64(s.N)
		d.HalfWidth, d.Lo, d.Hi = 0, s.Mean, s.Mean
		return d, true
	}
	if s.N <= t.NMin {
		return d, true
	}
	switch {
	case d.Ran == 0:
		d.State, d.Need = stats.Unseen, 0
		d.ProbLo, d.ProbHi = 0, stats.RuleOfThree(s.N, b.level)
		return d, true
	case s.M2 == 0:
		d.State, d.Need = stats.Constant, 0
		d.HalfWidth, d.Lo, d.Hi = 0, s.Mean, s.Mean
		d.ProbHi = stats.RuleOfThree(s.N, b.level)
		return d, true
	case s.Indicator():
		// The mean is a binomial proportion, or on a finite population a share of
		// its members: the exact interval, whatever the rule.
		d.Lo, d.Hi = b.share(d.Ran, s.N)
		d.HalfWidth = max(d.Hi-s.Mean, s.Mean-d.Lo)
		// The half-width shrinks about like 1/√n, times √(1 − n/N) on a
		// population: n0 the draws with replacement it projects, n0/(1 + n0/N)
		// without.
		n, fpc := float64(s.N), FPC(float64(s.N), t.Population)
		d.Need = FiniteNeed(math.Ceil(n*sq(d.HalfWidth/fpc/d.Eps)), t.Population)
		if d.HalfWidth <= d.Eps {
			d.State, d.Need = stats.Converged, float64(s.N)
		} else {
			b.rare(&d)
		}
		return d, true
	}
	return d, false
}

// rare marks an undecided block Rare when it runs in under 1 % of the trials and the
// trials it needs exceed the budget, or when the probability that it runs is below
// the level the user ignores.
func (b *base) rare(d *stats.Decision) {
	switch {
	case b.t.MaxTrials > 0 && d.Need > float64(b.t.MaxTrials) && d.Ran*100 < d.N:
		// Over budget because it runs so seldom (in under 1 % of the trials so
		// far); a block over budget that runs often is just unconverged.
		d.State = stats.Rare
	case b.t.IgnoreRare > 0 && float64(d.Ran) < b.t.IgnoreRare*float64(d.N):
		// The upper bound exceeds the proportion Ran/N, so only then can it be below.
		if _, hi := b.runProbability(d.Ran, d.N); hi < b.t.IgnoreRare {
			d.State = stats.Rare
		}
	}
	if d.State == stats.Rare {
		d.ProbLo, d.ProbHi = b.runProbability(d.Ran, d.N)
	}
}

// share returns the exact interval at the rule's level of the probability that a
// block runs, from the k trials of n in which it ran: Clopper–Pearson's
// ([stats.ClopperPearson]), or on a finite population of N members drawn without
// replacement the hypergeometric one of the share of members in which it runs
// ([stats.Hypergeometric]), which carries the finite-population correction.
func (b *base) share(k, n uint64) (lo, hi float64) {
	if N := b.t.Population; N > 0 && n <= N {
		return stats.Hypergeometric(k, n, N, b.level)
	}
	return stats.ClopperPearson(k, n, b.level)
}

// runProbability is [stats.RunProbability], with [base.share]'s interval when the
// block ran.
func (b *base) runProbability(k, n uint64) (lo, hi float64) {
	if k == 0 {
		return stats.RunProbability(k, n, b.level)
	}
	return b.share(k, n)
}

// symmetric completes a decision with the symmetric interval x̄ ± hw, needed the
// projected trials, ok the rule's own extra condition.
func (b *base) symmetric(d *stats.Decision, hw, need float64, ok bool) {
	d.HalfWidth, d.Lo, d.Hi = hw, d.Mean-hw, d.Mean+hw
	d.Need = max(need, float64(d.N))
	if hw <= d.Eps && ok {
		d.State = stats.Converged
		return
	}
	b.rare(d)
}

// NextCheck returns the trial count after n at which a run consults rule r next.
// Before n_min nothing can be decided; between n_min and the rule's minimum for a
// block that varies only constant blocks can be, so the rule is consulted at 10 %
// steps (a program whose blocks are all constant stops early); from the minimum on,
// after every trial for 1,000 trials, then every 0.1 %, so that a run overshoots the
// point where it could have stopped by at most 0.1 %. It depends on n only, so the
// stopping point does not depend on how the trials were scheduled. A run on a finite
// population of N items is always consulted at n = N, where every block is Exact.
func NextCheck(n uint64, r Rule) uint64 {
	if pop := r.Thresholds().Population; n < pop {
		return min(nextCheck(n, r), pop)
	}
	return nextCheck(n, r)
}

func nextCheck(n uint64, r Rule) uint64 {
	nmin, least := r.Thresholds().NMin, r.MinTrials()
	switch {
	case n <= nmin:
		return nmin + 1
	case n < least:
		return min(least, n+max(1, n/10))
	case n < least+1000:
		return n + 1
	}
	return n + n/1000
}
