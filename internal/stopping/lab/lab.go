// Package lab is the coverage laboratory of fragprof's stopping rules: it runs the
// whole sequential procedure of `fragprof freq` — draw a trial, fold it into the
// block's exact count distribution, consult the rule at the engine's check points,
// stop when the rule decides — many times over on populations whose mean is known
// exactly, and measures what the promise "e(b) to ±ε with confidence γ" is worth:
// the empirical coverage of the reported statement at the stopping time (with its
// own Clopper–Pearson interval), the mean number of trials, and the oracle, the
// least fixed number of trials whose estimate lies within ±ε of the mean with
// probability at least γ.
//
// Populations ([World]) are closed forms (loops of uniform length, branches of known
// probability, geometric and log-normal trip counts, rare blocks, blocks that run
// only on one input value, constant blocks) and resampling worlds: the exact
// per-trial count distribution of a block that `fragprof freq --profile` stored,
// taken as a population whose mean is its sample mean ([FromCountDist]).
//
// Each block is replicated as if it alone decided the run, so the stopping time
// depends on its own counts only: the case where looking at the data before
// stopping biases the coverage most.
package lab

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// A World is a population of per-trial counts with a known mean.
type World struct {
	Name string
	// Kind classes the world for the tables: "loop", "branch", "skewed", "rare",
	// "constant", "resampled".
	Kind string
	// Rare marks worlds where the normal approximation is not the point (blocks
	// that run in 1 % of trials or fewer): the 2×-oracle target leaves them out.
	Rare bool
	Mean float64 // exact
	// Eps is the absolute precision asked of the world's mean.
	Eps  float64
	Draw func(r *rand.Rand) uint64
	// Differs, when set, is the probability that a count differs from x: what a
	// Constant or Unseen verdict claims is small. Nil: P(count ≠ x) is estimated
	// by drawing.
	Differs func(x uint64) float64
	// Quantile, when set, is the count as a non-decreasing function of one uniform
	// input u in (0, 1) (the inverse of the count's distribution function): what a
	// design can stratify (Models).
	Quantile func(u float64) uint64
}

// Result is one (rule, world, γ) cell of the laboratory.
type Result struct {
	Rule, World string
	Kind        string
	Rare        bool
	Gamma, Eps  float64
	R           int     // replications
	Covered     int     // replications whose statement held
	Coverage    float64 // Covered/R
	CovLo       float64 // Clopper–Pearson interval of the coverage at 95 %
	CovHi       float64
	MeanTrials  float64
	Oracle      float64 // least fixed n covering with probability ≥ γ (0: not computed)
	States      map[string]int
}

// Ratio returns MeanTrials/Oracle (NaN without an oracle).
func (r Result) Ratio() float64 {
	if r.Oracle == 0 {
		return math.NaN()
	}
	return r.MeanTrials / r.Oracle
}

// Config is what Run replicates.
type Config struct {
	R         int    // replications per cell
	Seed      uint64 // replication k of a cell uses the seed (Seed, k)
	MaxTrials uint64 // budget of one replication (0: 10⁶)
	NMin      uint64 // 0: 30
	// OracleR is the number of fixed-n samples per candidate n of the oracle's
	// search (0: no oracle).
	OracleR int
}

// Run replicates the rule named rule on world w at confidence gamma.
func Run(rule string, w World, gamma float64, c Config) (Result, error) {
	r, c, err := c.rule(rule, w.Eps, gamma)
	if err != nil {
		return Result{}, err
	}
	return c.replicate(rule, w, gamma, func(rng *rand.Rand) stats.Decision {
		return Replicate(r, w.Draw, rng, c.MaxTrials)
	}), nil
}

// rule makes the named rule at precision eps and confidence gamma, with c's n_min
// and budget (defaults filled in the Config returned).
func (c Config) rule(name string, eps, gamma float64) (stopping.Rule, Config, error) {
	th := stats.DefaultThresholds
	th.Eps, th.Gamma = eps, gamma
	if c.NMin > 0 {
		th.NMin = c.NMin
	}
	if c.MaxTrials == 0 {
		c.MaxTrials = 1_000_000
	}
	th.MaxTrials = c.MaxTrials
	r, err := stopping.New(name, th)
	return r, c, err
}

// replicate runs c.R replications of one procedure, replication k with the random
// numbers of (c.Seed, k), and tallies what their statements about w hold: the
// coverage with its Clopper–Pearson interval, the mean trials, the states, and the
// oracle when c.OracleR asks for it.
func (c Config) replicate(rule string, w World, gamma float64, run func(rng *rand.Rand) stats.Decision) Result {
	type rep struct {
		covered bool
		n       uint64
		state   stats.State
	}
	reps := make([]rep, c.R)
	parallel(c.R, func(k int) {
		d := run(rand.New(rand.NewPCG(c.Seed, uint64(k))))
		reps[k] = rep{covered: Holds(d, w, gamma), n: d.N, state: d.State}
	})
	res := Result{Rule: rule, World: w.Name, Kind: w.Kind, Rare: w.Rare, Gamma: gamma, Eps: w.Eps, R: c.R, States: map[string]int{}}
	var total float64
	for _, x := range reps {
		if x.covered {
			res.Covered++
		}
		total += float64(x.n)
		res.States[x.state.String()]++
	}
	res.Coverage = float64(res.Covered) / float64(c.R)
	res.CovLo, res.CovHi = stats.ClopperPearson(uint64(res.Covered), uint64(c.R), 0.95)
	res.MeanTrials = total / float64(c.R)
	if c.OracleR > 0 {
		res.Oracle = float64(Oracle(w, gamma, c.OracleR, c.Seed^0x9e3779b97f4a7c15))
	}
	return res
}

// Replicate runs the sequential procedure once: it draws counts, folds them into a
// CountDist and consults r at the engine's check points ([stopping.NextCheck]) until
// r decides or the budget is spent, and returns the last decision.
func Replicate(r stopping.Rule, draw func(*rand.Rand) uint64, rng *rand.Rand, budget uint64) stats.Decision {
	var d stats.CountDist
	next := uint64(1)
	for n := uint64(1); ; n++ {
		d.Add(draw(rng))
		if n < next && n < budget {
			continue
		}
		dec := r.Decide(d.Summary())
		if dec.State.Decided() || n >= budget {
			return dec
		}
		next = stopping.NextCheck(n, r)
	}
}

// Holds reports whether the statement that decision d makes about world w is true:
// for an interval (Converged, Unconverged with an interval), that it contains the
// mean; for Rare, that the probability of running lies in [ProbLo, ProbHi]; for
// Constant at x, that counts other than x occur in fewer than
// Decision.ProbHi of the trials, as the report says; for Unseen, that the block
// runs in fewer than that (the rule of three).
func Holds(d stats.Decision, w World, gamma float64) bool {
	switch d.State {
	case stats.Rare:
		// The report bounds how often the block runs, not its mean.
		if !math.IsNaN(d.ProbHi) {
			p := w.differs(0)
			return d.ProbLo <= p && p <= d.ProbHi
		}
	case stats.Unseen, stats.Constant:
		x := uint64(math.Round(d.Mean))
		bound := d.ProbHi
		if math.IsNaN(bound) { // the FreqSys rules state no bound: the rule of three at γ
			bound = stats.RuleOfThree(d.N, gamma)
		}
		return w.differs(x) <= bound
	}
	if math.IsNaN(d.Lo) || math.IsNaN(d.Hi) {
		return false
	}
	return d.Lo <= w.Mean && w.Mean <= d.Hi
}

func (w World) differs(x uint64) float64 {
	if w.Differs != nil {
		return w.Differs(x)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	const m = 200_000
	k := 0
	for range m {
		if w.Draw(rng) != x {
			k++
		}
	}
	return float64(k) / m
}

// Oracle returns the least fixed n for which the mean of n draws lies within ±ε
// of the world's mean with probability at least γ, estimated from r samples of
// each candidate n: a geometric search from the normal approximation
// n₀ = (u·σ/ε)², then bisection. It knows the population, which no rule does.
func Oracle(w World, gamma float64, r int, seed uint64) uint64 {
	cover := func(n uint64) float64 {
		hits := make([]bool, r)
		parallel(r, func(k int) {
			rng := rand.New(rand.NewPCG(seed+n, uint64(k)))
			var s float64
			for range n {
				s += float64(w.Draw(rng))
			}
			hits[k] = math.Abs(s/float64(n)-w.Mean) <= w.Eps
		})
		c := 0
		for _, h := range hits {
			if h {
				c++
			}
		}
		return float64(c) / float64(r)
	}
	sd := w.stdDev()
	n0 := uint64(math.Max(1, math.Ceil(sq(stats.NormalCoefficient(gamma)*sd/w.Eps))))
	lo, hi := uint64(0), n0 // cover(lo) < γ ≤ cover(hi), lo = 0 standing for "none"
	if cover(n0) >= gamma {
		for hi > 1 {
			m := hi * 3 / 4
			if cover(m) < gamma {
				lo = m
				break
			}
			hi = m
		}
	} else {
		lo = n0
		for {
			hi = lo + max(1, lo/3)
			if cover(hi) >= gamma || hi > 1e8 {
				break
			}
			lo = hi
		}
	}
	for hi-lo > max(1, hi/100) {
		m := (lo + hi) / 2
		if m == 0 {
			break
		}
		if cover(m) >= gamma {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}

func (w World) stdDev() float64 {
	rng := rand.New(rand.NewPCG(11, 11))
	var m stats.Moments
	for range 200_000 {
		m.Add(float64(w.Draw(rng)))
	}
	return m.StdDev()
}

func sq(x float64) float64 { return x * x }

// parallel runs f(0..n−1) on every core.
func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for k := range next {
				f(k)
			}
		})
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
}

// Uniform returns a loop whose trip count is uniform on {lo, …, hi}: mean (lo+hi)/2.
func Uniform(name string, lo, hi uint64, eps float64) World {
	return World{Name: name, Kind: "loop", Mean: float64(lo+hi) / 2, Eps: eps,
		Draw:     func(r *rand.Rand) uint64 { return lo + r.Uint64N(hi-lo+1) },
		Quantile: func(u float64) uint64 { return min(hi, lo+uint64(u*float64(hi-lo+1))) }}
}

// Branch returns a block that runs once with probability p: mean p.
func Branch(name string, p, eps float64, rare bool) World {
	kind := "branch"
	if rare {
		kind = "rare"
	}
	return World{Name: name, Kind: kind, Rare: rare, Mean: p, Eps: eps,
		Draw: func(r *rand.Rand) uint64 {
			if r.Float64() < p {
				return 1
			}
			return 0
		},
		Quantile: func(u float64) uint64 {
			if u >= 1-p {
				return 1
			}
			return 0
		},
		Differs: func(x uint64) float64 {
			switch x {
			case 0:
				return p
			case 1:
				return 1 - p
			}
			return 1
		}}
}

// Geometric returns a loop whose trip count is the number of failures before the
// first success of probability p: mean (1 − p)/p, skewness (2 − p)/√(1 − p).
func Geometric(name string, p, eps float64) World {
	lq := math.Log1p(-p)
	return World{Name: name, Kind: "skewed", Mean: (1 - p) / p, Eps: eps,
		Draw: func(r *rand.Rand) uint64 {
			return uint64(math.Floor(math.Log(1-r.Float64()) / lq))
		},
		Quantile: func(u float64) uint64 { return uint64(math.Floor(math.Log1p(-u) / lq)) }}
}

// LogNormal returns a loop whose trip count is ⌊e^X⌋, X ~ N(mu, sigma²). Its mean
// is Σ_{k≥1} P(e^X ≥ k) = Σ_{k≥1} Q((ln k − mu)/sigma), summed until the terms
// fall below 10⁻¹⁶ of the sum.
func LogNormal(name string, mu, sigma, eps float64) World {
	var mean float64
	for k := 1.0; ; k++ {
		q := 0.5 * math.Erfc((math.Log(k)-mu)/sigma/math.Sqrt2)
		mean += q
		if q < 1e-16*mean {
			break
		}
	}
	return World{Name: name, Kind: "skewed", Mean: mean, Eps: eps,
		Draw: func(r *rand.Rand) uint64 { return uint64(math.Floor(math.Exp(mu + sigma*r.NormFloat64()))) },
		Quantile: func(u float64) uint64 {
			return uint64(math.Floor(math.Exp(mu + sigma*math.Sqrt2*math.Erfinv(2*u-1))))
		}}
}

// OnValue returns a block that runs m times when a uniform input on {1, …, v}
// takes one value, and not at all otherwise: mean m/v.
func OnValue(name string, v, m uint64, eps float64) World {
	return World{Name: name, Kind: "rare", Rare: true, Mean: float64(m) / float64(v), Eps: eps,
		Draw: func(r *rand.Rand) uint64 {
			if r.Uint64N(v) == 0 {
				return m
			}
			return 0
		},
		Quantile: func(u float64) uint64 {
			if u >= 1-1/float64(v) {
				return m
			}
			return 0
		},
		Differs: func(x uint64) float64 {
			switch x {
			case 0:
				return 1 / float64(v)
			case m:
				return 1 - 1/float64(v)
			}
			return 1
		}}
}

// Nested returns a doubly nested loop of a × b passes, a uniform on {1..A} and b
// on {1..B}: mean (A+1)(B+1)/4.
func Nested(name string, a, b uint64, eps float64) World {
	return World{Name: name, Kind: "loop", Mean: float64((a+1)*(b+1)) / 4, Eps: eps,
		Draw: func(r *rand.Rand) uint64 { return (1 + r.Uint64N(a)) * (1 + r.Uint64N(b)) }}
}

// Constant returns a block that runs c times in every trial.
func Constant(name string, c uint64) World {
	return World{Name: name, Kind: "constant", Mean: float64(c), Eps: 0.01,
		Draw:     func(*rand.Rand) uint64 { return c },
		Quantile: func(float64) uint64 { return c },
		Differs: func(x uint64) float64 {
			if x == c {
				return 0
			}
			return 1
		}}
}

// FromCountDist returns the resampling world of a stored count distribution: trials
// drawn with replacement from its exact table, so that its mean, the table's mean,
// is known exactly. relEps sets ε = relEps·mean. A coarse (bucketed) distribution is
// refused: its values are not known exactly.
func FromCountDist(name string, d *stats.CountDist, relEps float64) (World, error) {
	if !d.Exact() || len(d.Values) == 0 {
		return World{}, fmt.Errorf("lab: %s: the stored distribution is not an exact table", name)
	}
	vals := slices.Clone(d.Values)
	cum := make([]uint64, len(vals))
	var n uint64
	for i, v := range vals {
		n += v.N
		cum[i] = n
	}
	s := d.Summary()
	p0 := float64(s.Zeros) / float64(n)
	return World{Name: name, Kind: "resampled", Rare: p0 >= 0.99, Mean: s.Mean, Eps: relEps * s.Mean,
		Draw: func(r *rand.Rand) uint64 {
			u := r.Uint64N(n)
			return vals[sort.Search(len(cum), func(i int) bool { return cum[i] > u })].V
		},
		Differs: func(x uint64) float64 {
			for _, v := range vals {
				if v.V == x {
					return 1 - float64(v.N)/float64(n)
				}
			}
			return 1
		}}, nil
}

// Closed returns the closed-form worlds of the laboratory, with precisions chosen
// so that the oracle needs hundreds to thousands of trials.
func Closed() []World {
	return []World{
		Uniform("uniform loop 1..100", 1, 100, 2),
		Uniform("uniform loop 8..11", 8, 11, 0.15),
		Nested("nested loops 10x20", 10, 20, 2),
		Branch("branch p=0.3", 0.3, 0.03, false),
		Branch("branch p=0.9", 0.9, 0.015, false),
		Geometric("geometric loop p=0.2", 0.2, 0.3),
		Geometric("geometric loop p=0.02", 0.02, 4),
		LogNormal("log-normal trip s=1", 2, 1, 1),
		LogNormal("log-normal trip s=1.5", 2, 1.5, 4),
		Branch("rare p=1e-2", 1e-2, 0.003, true),
		Branch("rare p=1e-3", 1e-3, 0.001, true),
		Branch("rare p=1e-4", 1e-4, 0.0003, true),
		Branch("rare complement p=0.99", 0.99, 0.005, true),
		OnValue("50 runs on 1 value of 1000", 1000, 50, 0.02),
		Constant("constant 5", 5),
	}
}

// newRule makes the named rule at absolute precision eps and confidence gamma, with
// the default thresholds otherwise.
func newRule(name string, eps, gamma float64) (stopping.Rule, error) {
	th := stats.DefaultThresholds
	th.Eps, th.Gamma = eps, gamma
	return stopping.New(name, th)
}
