// This file lays out a run of trials from what freq's command line asks: a whole
// run on one machine, a shard of one (--shard I/K), a cluster task's share
// (--trial-range) or a cluster's coordinator, an exhaustive run's members, a
// finite population's rule and budget, a stratified population's rule, and the
// trials' design (--design).

package montecarlo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/stopping"
)

// Plan is what a run of trials is asked to do. Config turns it into the engine's
// configuration for this machine, Coordinator into the rule and budget of a
// coordinator that judges all the trials of a cluster's tasks.
type Plan struct {
	Rule        stopping.Rule
	MaxTrials   uint64        // the trial budget (of this shard alone, with Shards > 1)
	MaxTime     time.Duration // 0: none
	Jobs        int
	MaxFailRate float64
	Only        []string
	// Unit is the number of trials of a Latin hypercube unit (1: independent
	// trials); Program.Unit must say the same.
	Unit int
	// Shard and Shards select shard Shard of Shards (Config.Shard); Shards 0 or 1:
	// every trial.
	Shard, Shards uint64
	// First and Share are a cluster task's share: Share trials from trial First
	// on, every one run (Config.Exhaust); Share 0: not a task. A task's rule is
	// left as it is: the coordinator judges the population.
	First, Share uint64
	Model        *dist.Model
	// Strata is the model's stratified population (dist.Model.Strata), prepared by
	// PrepareStrata; nil without one.
	Strata *dist.Strata
	// Members is the size of the population an exhaustive run runs through, each
	// member once (dist.Model.Exhaustive); 0 for a run that samples.
	Members uint64
}

// EmptyShardError is the error of an exhaustive run's shard that holds no member
// of the population: a shard number at or past the population's size.
type EmptyShardError struct {
	Shard, Shards, Members uint64
}

func (e *EmptyShardError) Error() string {
	return fmt.Sprintf("--exhaustive --shard %d/%d: the population's %d members leave this shard none", e.Shard, e.Shards, e.Members)
}

// Config returns the engine's configuration of the plan, its workers started by
// newWorker, and the size N of the finite population its rule holds (0 when the
// trials draw none, and for a task's share, which the coordinator judges):
//   - a task's share runs trials First … First+Share−1 of its shard, every one;
//   - on a finite population of N items drawn without replacement
//     (dist.Model.FinitePopulation) the rule takes N (the finite-population
//     correction, and the exact state at n = N) and the budget is at most N,
//     since the N-th trial completes the population; a shard's budget stops at
//     its last trial below N (past it, items repeat);
//   - a stratified population's schedule draws the trials unless units judge the
//     run, and the stratified mean judges the blocks (stopping.Stratified), each
//     stratum a finite population unless anything else is drawn at random; a
//     task keeps its counts per stratum for the coordinator;
//   - an exhaustive run runs every member once: trials 0 … Members−1, or the
//     shard's share of them (an *EmptyShardError when that is none).
func (p Plan) Config(newWorker func(k int) (Worker, error)) (Config, uint64, error) {
	cfg := Config{
		Rule: p.Rule, MaxTrials: p.MaxTrials, MaxTime: p.MaxTime, Jobs: p.Jobs, NewWorker: newWorker,
		Shard: p.Shard, Shards: p.Shards, MaxFailRate: p.MaxFailRate, Only: p.Only, Unit: uint64(p.Unit),
	}
	if p.Share > 0 {
		cfg.First, cfg.MaxTrials, cfg.Exhaust = p.First, p.Share, true
	}
	pop := uint64(0)
	if p.Share == 0 {
		var err error
		if cfg.Rule, cfg.MaxTrials, pop, err = finitePopulation(p.Rule, p.Model, cfg.MaxTrials); err != nil {
			return Config{}, 0, err
		}
		if p.Shards > 1 && pop > 0 {
			cfg.MaxTrials = min(cfg.MaxTrials, shardTrialsBelow(pop, p.Shard, p.Shards, uint64(max(p.Unit, 1))))
		}
	}
	if p.Strata != nil && p.Unit <= 1 {
		cfg.Strata = p.Strata.Schedule
		if p.Share == 0 {
			sr, err := stopping.NewStratified(cfg.Rule.Thresholds())
			if err != nil {
				return Config{}, 0, err
			}
			sr.Infinite = p.Model.FinitePopulation() == 0
			cfg.StrataRule = sr
		}
	}
	if p.Members > 0 {
		cfg.MaxTrials, cfg.Exhaust = p.Members, true
		if p.Shards > 1 {
			cfg.MaxTrials = shardTrialsBelow(p.Members, p.Shard, p.Shards, 1)
			if cfg.MaxTrials == 0 {
				return Config{}, 0, &EmptyShardError{Shard: p.Shard, Shards: p.Shards, Members: p.Members}
			}
		}
	}
	return cfg, pop, nil
}

// Coordinator returns the rule and the trial budget of a coordinator that judges
// all the trials of a run spread over a cluster's tasks (package cluster): on a
// finite population, the rule with its size and a budget of at most N trials, as
// on one machine; an exhaustive run's budget is its members.
func (p Plan) Coordinator() (stopping.Rule, uint64, error) {
	rule, maxTrials, _, err := finitePopulation(p.Rule, p.Model, p.MaxTrials)
	if err != nil {
		return nil, 0, err
	}
	if p.Members > 0 {
		maxTrials = p.Members
	}
	return rule, maxTrials, nil
}

// Settle completes the result of a run of cfg, the plan's configuration with the
// population's size pop (Config): the strata's names and sizes, and what its end
// means for the estimates (Result.Explain); interrupted says a signal stopped
// the run.
func (p Plan) Settle(res *Result, cfg Config, pop uint64, interrupted bool) {
	if p.Strata != nil {
		res.StrataNames, res.StrataSizes = p.Strata.Names, p.Strata.Sizes
	}
	res.Explain(cfg, p.Members, pop, interrupted)
}

// finitePopulation returns the rule for a model whose trials draw a finite
// population of N items without replacement (dist.Model.FinitePopulation): the
// rule with the finite-population correction and the exact state at n = N, a
// trial budget of at most N (maxTrials 0 is none: N), since the N-th trial
// completes the population, and N. It returns rule, maxTrials and 0 for any other
// model.
func finitePopulation(rule stopping.Rule, m *dist.Model, maxTrials uint64) (stopping.Rule, uint64, uint64, error) {
	n := uint64(m.FinitePopulation())
	if n == 0 {
		return rule, maxTrials, 0, nil
	}
	th := rule.Thresholds()
	th.Population = n
	r, err := stopping.New(rule.Name(), th)
	if err != nil {
		return nil, 0, 0, err
	}
	if maxTrials == 0 || maxTrials > n {
		maxTrials = n
	}
	return r, maxTrials, n, nil
}

// shardTrialsBelow returns how many of shard i of k's trials are numbered below
// n, when shards take units of m consecutive trials (Config.Unit): units i, i+k,
// i+2k, ....
func shardTrialsBelow(n, i, k, m uint64) uint64 {
	var c uint64
	for u := i; u*m < n; u += k {
		c += min(m, n-u*m)
	}
	return c
}

// PrepareStrata prepares the schedule of a stratified population for a run and
// returns the unit of its trials (Plan.Unit): the schedule's pilot is the
// stratified rule's (stopping.PilotDraws), and the design of Latin hypercube
// units, which the stratified rule does not judge, is left for independent
// trials unless the design was asked for (designGiven; then the units judge, and
// the strata only shape the draws: with proportional allocation only). unit is
// the design's unit, design its name as given. Neyman's allocation plans each
// round from all the trials before it, on one machine: spread names the flag
// that spreads the run over machines ("--shard", "--trial-range", "--engine
// slurm"; "" on one machine), which Neyman's allocation refuses.
func PrepareStrata(st *dist.Strata, m *dist.Model, unit int, design string, designGiven bool, spread string) (int, error) {
	st.Schedule.SetPilot(stopping.PilotDraws)
	neyman := st.Alloc == dist.Neyman
	if neyman && spread != "" {
		return 0, fmt.Errorf("input %s: alloc = neyman plans each round of trials from the counts of all the trials before it, which one machine holds: not with %s (use alloc = proportional, whose strata depend on the trial's number alone, or run on one machine with --jobs)", st.Input, spread)
	}
	if unit > 1 {
		switch {
		case !designGiven && (neyman || m.FinitePopulation() > 0):
			unit = 1
		case neyman:
			return 0, fmt.Errorf("--design %s and input %s's alloc = neyman: the units are judged on their sums, which weigh the strata by the trials each got; use --design independent, or alloc = proportional", design, st.Input)
		}
	}
	return unit, nil
}

// DesignUnit returns the unit of the trials' Latin hypercube design (Plan.Unit;
// 1: independent trials) that design, as --design gives it, asks for:
// "independent" a unit of 1, "latin" one of 16 (the laboratory's size,
// bench/coverage.sh), "latin:M" one of M, 2 ≤ M ≤ 4096. given says the design was
// asked for, not the default's; rule is the stopping rule's name, and cluster says
// the trials run as a cluster's (--engine slurm, or a task's --trial-range). The
// default design draws independent trials where units do not apply: the FreqSys
// rules, which reproduce the paper, a cluster's rounds, which merge per-trial
// distributions, not the units' sums, and the time-uniform rules, whose guarantee
// at every n is proven for one sequence of independent trials, not for the two
// ways to converge of stopping.Units. Units asked for where they do not apply are
// an error.
func DesignUnit(design string, given bool, rule string, cluster bool) (int, error) {
	unit, err := parseDesign(design)
	if err != nil {
		return 0, fmt.Errorf("--design %q: %v", design, err)
	}
	freqsys := strings.HasPrefix(rule, "freqsys-")
	switch {
	case unit == 1 || given && !freqsys && !cluster:
	case given && freqsys:
		return 0, fmt.Errorf("--design %s: the FreqSys rules reproduce the paper, whose trials are independent", design)
	case given:
		return 0, fmt.Errorf("--design %s runs on --engine local only: a cluster's rounds merge per-trial distributions, not the units' sums", design)
	case freqsys || stopping.AnytimeValid(rule) || cluster:
		unit = 1
	}
	return unit, nil
}

// parseDesign reads --design: "independent" gives a unit of 1, "latin" one of 16,
// "latin:M" one of M, 2 ≤ M ≤ 4096.
func parseDesign(s string) (int, error) {
	switch {
	case s == "independent":
		return 1, nil
	case s == "latin":
		return 16, nil
	case strings.HasPrefix(s, "latin:"):
		m, err := strconv.Atoi(strings.TrimPrefix(s, "latin:"))
		if err != nil || m < 2 || m > 4096 {
			return 0, fmt.Errorf("want latin:M with a unit of 2 ≤ M ≤ 4096 trials, e.g. latin:16")
		}
		return m, nil
	}
	return 0, fmt.Errorf("want independent, latin or latin:M")
}
