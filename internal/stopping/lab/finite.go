// This file implements the laboratory of finite populations: freq's rule run to
// its stopping point on draws without replacement from a population of known
// members.

package lab

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// Population returns the world of a finite population whose members' counts are
// pop: its exact mean, how often a count differs from x (exact), and Draw with
// replacement (what the oracle samples; Finite draws without). eps is the
// absolute precision asked.
func Population(name, kind string, pop []uint64, eps float64) World {
	var sum float64
	for _, x := range pop {
		sum += float64(x)
	}
	n := float64(len(pop))
	return World{Name: name, Kind: kind, Mean: sum / n, Eps: eps,
		Draw: func(r *rand.Rand) uint64 { return pop[r.IntN(len(pop))] },
		Differs: func(x uint64) float64 {
			k := 0
			for _, y := range pop {
				if y != x {
					k++
				}
			}
			return float64(k) / n
		}}
}

// Finite replicates the named rule, made for the population of pop
// (stats.Thresholds.Population = len(pop), as freq makes it for a corpus), c.R
// times on simple random samples of pop drawn without replacement, replication k
// with the random numbers of (c.Seed, k), each run to the rule's stopping point on
// the engine's check points ([stopping.NextCheck], which include n = N, where
// every block is Exact), and tallies what the statements hold about pop's world w
// ([Population]): the coverage with its Clopper–Pearson interval, the mean trials
// and the states. A statement at n = N holds when it is the population's mean.
func Finite(rule string, pop []uint64, w World, gamma float64, c Config) (Result, error) {
	r, c, err := c.rule(rule, w.Eps, gamma)
	if err != nil {
		return Result{}, err
	}
	if len(pop) == 0 {
		return Result{}, fmt.Errorf("lab: an empty population")
	}
	r, err = PopulationRule(r, uint64(len(pop)))
	if err != nil {
		return Result{}, err
	}
	return c.replicate(rule, w, gamma, func(rng *rand.Rand) stats.Decision {
		d := WithoutReplacement(r, pop, rng)
		if d.State == stats.Exact && math.Abs(d.Mean-w.Mean) <= 1e-12*max(1, math.Abs(w.Mean)) {
			d.Lo, d.Hi = w.Mean, w.Mean // rounding aside, the mean itself
		}
		return d
	}), nil
}

// WithoutReplacement runs the sequential procedure once on a simple random sample
// of pop drawn without replacement (a shuffle, drawn in order) under r, a rule
// made for len(pop) items: it consults r at the engine's check points until r
// decides or every member is drawn, and returns the last decision.
func WithoutReplacement(r stopping.Rule, pop []uint64, rng *rand.Rand) stats.Decision {
	perm := rng.Perm(len(pop))
	var d stats.CountDist
	next := stopping.NextCheck(0, r)
	for n := uint64(1); ; n++ {
		d.Add(pop[perm[n-1]])
		if n < next && n < uint64(len(pop)) {
			continue
		}
		dec := r.Decide(d.Summary())
		if dec.State.Decided() || n >= uint64(len(pop)) {
			return dec
		}
		next = stopping.NextCheck(n, r)
	}
}
