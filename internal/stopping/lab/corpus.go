// This file implements the laboratory of a real corpus: every member's per-block
// counts recorded once, then freq's whole procedure replayed on them.

package lab

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// A Corpus holds the per-block counts of every member of a finite population (a
// file() corpus, the lines or rows of a file: docs/inputs.md), recorded by running
// the program once on each. Replaying `fragprof freq` on it costs no execution of
// the program, and its truth — each block's mean over the members — is exact.
type Corpus struct {
	Prog *cfg.Program
	// Members maps a member's name (dist.Sample.Items: `f = file "/…/a.sql"`) to
	// its counts, parallel to Prog.Funcs.
	Members map[string][]cfg.Counts
	// Exhaustive is the run that recorded them: every member once, the estimates
	// exact (stats.Exact).
	Exhaustive *montecarlo.Result
}

// PopulationRule returns rule made for a finite population of n items, as freq
// makes it (stats.Thresholds.Population: the finite-population correction and
// the exact state at n = N).
func PopulationRule(rule stopping.Rule, n uint64) (stopping.Rule, error) {
	th := rule.Thresholds()
	th.Population = n
	return stopping.New(rule.Name(), th)
}

// Record runs p once on each of the n members of its inputs' finite population —
// trials 0 … n−1 under p.Seed, which draw every member once — on jobs workers, and
// keeps every member's counts. A trial that fails is an error naming its member:
// a corpus with a member missing has no exact truth.
func Record(ctx context.Context, p *montecarlo.Program, jobs int) (*Corpus, error) {
	n := uint64(p.Inputs.Model.FinitePopulation())
	if n == 0 {
		return nil, fmt.Errorf("lab: the inputs are not one finite population drawn without replacement (docs/inputs.md)")
	}
	clt, err := newRule(stopping.Default, 1, 0.95)
	if err != nil {
		return nil, err
	}
	rule, err := PopulationRule(clt, n)
	if err != nil {
		return nil, err
	}
	c := &Corpus{Members: map[string][]cfg.Counts{}}
	var mu sync.Mutex
	var failed error
	res, err := montecarlo.Run(ctx, montecarlo.Config{
		Rule: rule, MaxTrials: n, Jobs: jobs, Exhaust: true, MaxFailRate: 1,
		NewWorker: func(k int) (montecarlo.Worker, error) {
			w, err := p.NewWorker(k)
			if err != nil {
				return nil, err
			}
			return &recorder{w: w, p: p, c: c, mu: &mu, failed: &failed}, nil
		}})
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, failed
	}
	if res.Trials != n || uint64(len(c.Members)) != n {
		return nil, fmt.Errorf("lab: recorded %d of the %d members (%d trials)", len(c.Members), n, res.Trials)
	}
	c.Prog, c.Exhaustive = res.Prog, res
	return c, nil
}

// recorder is a worker that keeps the counts of the trials it runs by member.
type recorder struct {
	w      montecarlo.Worker
	p      *montecarlo.Program
	c      *Corpus
	mu     *sync.Mutex
	failed *error
}

func (r *recorder) Trials(ctx context.Context, is []uint64) ([]montecarlo.Outcome, error) {
	outs, err := r.w.Trials(ctx, is)
	if err != nil {
		return outs, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, o := range outs {
		in, err := r.p.TrialInputs(is[k])
		if err != nil {
			return nil, err
		}
		switch _, dup := r.c.Members[in.Items]; {
		case o.Failure != "":
			if *r.failed == nil {
				*r.failed = fmt.Errorf("lab: trial %d [%s] failed: %s", is[k], in.Items, o.Failure)
			}
		case dup:
			return nil, fmt.Errorf("lab: trial %d drew %s a second time", is[k], in.Items)
		default:
			r.c.Members[in.Items] = o.Counts
		}
	}
	return outs, nil
}

func (r *recorder) Close() error { return r.w.Close() }

// Replay runs freq's procedure — montecarlo.Run with rule, the design of p.Unit
// and the trials drawn under p.Seed — on the recorded counts instead of the
// program: trial i's outcome is the counts of the member p draws at trial i. With
// the rule freq makes (PopulationRule) the result is the one `fragprof freq` gives
// with the same seed, trial for trial (TestCorpusReplay).
func (c *Corpus) Replay(ctx context.Context, p *montecarlo.Program, rule stopping.Rule) (*montecarlo.Result, error) {
	unit := uint64(max(p.Unit, 1))
	return montecarlo.Run(ctx, montecarlo.Config{
		Rule: rule, MaxTrials: uint64(len(c.Members)), Jobs: 1, Unit: unit,
		NewWorker: func(int) (montecarlo.Worker, error) {
			s := p.Inputs.Model.NewSample()
			s.SetUnit(p.Unit)
			return &replayer{c: c, p: p, s: s}, nil
		}})
}

// replayer is a worker that answers each trial with its member's recorded counts.
type replayer struct {
	c *Corpus
	p *montecarlo.Program
	s *dist.Sample
}

func (r *replayer) Trials(_ context.Context, is []uint64) ([]montecarlo.Outcome, error) {
	outs := make([]montecarlo.Outcome, len(is))
	for k, i := range is {
		// The draw of montecarlo.Program.TrialInputs, without rendering the
		// templates: the member is all the replay needs.
		if err := r.p.Inputs.Model.DrawInto(r.s, r.p.Seed, i); err != nil {
			return nil, fmt.Errorf("trial %d: drawing inputs: %v", i, err)
		}
		items := r.s.Items()
		counts, ok := r.c.Members[items]
		if !ok {
			return nil, fmt.Errorf("lab: trial %d draws %s, which was not recorded", i, items)
		}
		outs[k] = montecarlo.Outcome{Prog: r.c.Prog, Counts: counts}
	}
	return outs, nil
}

func (r *replayer) Close() error { return nil }

// column returns block b of function fi's count in every member, in no
// particular order (0 where the function did not run).
func (c *Corpus) column(fi, b int) []uint64 {
	col := make([]uint64, 0, len(c.Members))
	for _, m := range c.Members {
		var x uint64
		if m[fi].Blocks != nil {
			x = m[fi].Blocks[b]
		}
		col = append(col, x)
	}
	return col
}

// Truth returns block b of function fi's exact world: its mean over the members,
// and how often its count differs from x (what a constant, unseen or rare verdict
// bounds; each x counted once, then remembered, safe for concurrent use).
func (c *Corpus) Truth(fi, b int) World {
	col := c.column(fi, b)
	n := float64(len(col))
	var sum float64
	for _, x := range col {
		sum += float64(x)
	}
	var mu sync.Mutex
	differs := map[uint64]float64{}
	return World{Name: c.Prog.Funcs[fi].Name + ":" + c.Prog.Funcs[fi].Blocks[b].Label, Kind: "corpus",
		Mean: sum / n,
		Differs: func(x uint64) float64 {
			mu.Lock()
			defer mu.Unlock()
			if p, ok := differs[x]; ok {
				return p
			}
			k := 0
			for _, y := range col {
				if y != x {
					k++
				}
			}
			differs[x] = float64(k) / n
			return differs[x]
		}}
}

// Share returns the fraction of the members in which block b of function fi ran.
func (c *Corpus) Share(fi, b int) float64 {
	k := 0
	for _, m := range c.Members {
		if m[fi].Blocks != nil && m[fi].Blocks[b] > 0 {
			k++
		}
	}
	return float64(k) / float64(len(c.Members))
}

// CorpusResult is what R replications of freq on a corpus measured.
type CorpusResult struct {
	R, N   int // replications, members
	Blocks int // blocks judged: those that ran in at least the share asked of the members
	// Covered counts (replication, block) pairs whose statement held;
	// BlockCoverage = Covered/(R·Blocks), with its Clopper–Pearson interval at 95 %.
	Covered              int
	BlockCoverage        float64
	CovLo, CovHi         float64
	AllCovered           int     // replications in which every judged block's statement held
	MeanTrials           float64 // mean trials per replication
	TrialsSD             float64 // their standard deviation over the replications
	MinTrials, MaxTrials uint64
	// PerBlock counts the replications in which each judged block's statement
	// held, in the order of Names.
	PerBlock               []int
	Names                  []string
	States                 map[string]int // states of the judged blocks over all replications
	WorstBlock             string         // the judged block covered least often
	WorstCovered, WorstOut int            // its replications covered and not
}

// Coverage replays freq's procedure r times, replication k with seed seed+k, and
// measures how often each block that ran in at least minShare of the members is
// reported truly (Holds against its exact world at the rule's γ): the coverage
// per block and replication, the replications in which all held, and the trials.
// The replications run on every core.
func (c *Corpus) Coverage(ctx context.Context, p *montecarlo.Program, rule stopping.Rule, r int, seed uint64, minShare float64) (*CorpusResult, error) {
	type blk struct {
		fi, b int
		w     World
	}
	var judged []blk
	for fi, fn := range c.Prog.Funcs {
		for b := range fn.Blocks {
			if c.Share(fi, b) >= minShare {
				judged = append(judged, blk{fi, b, c.Truth(fi, b)})
			}
		}
	}
	if len(judged) == 0 {
		return nil, fmt.Errorf("lab: no block ran in %g of the members", minShare)
	}
	gamma := rule.Thresholds().Gamma
	type rep struct {
		trials uint64
		holds  []bool
		states []stats.State
		err    error
	}
	reps := make([]rep, r)
	parallel(r, func(k int) {
		q := *p
		q.Seed = seed + uint64(k)
		res, err := c.Replay(ctx, &q, rule)
		if err != nil {
			reps[k].err = err
			return
		}
		x := rep{trials: res.Trials, holds: make([]bool, len(judged)), states: make([]stats.State, len(judged))}
		for j, jb := range judged {
			d := res.Blocks[jb.fi][jb.b].Decision
			x.holds[j], x.states[j] = Holds(d, jb.w, gamma), d.State
			if d.State == stats.Exact { // the mean of all members, up to rounding
				x.holds[j] = math.Abs(d.Mean-jb.w.Mean) <= 1e-12*max(1, math.Abs(jb.w.Mean))
			}
		}
		reps[k] = x
	})
	out := &CorpusResult{R: r, N: len(c.Members), Blocks: len(judged), States: map[string]int{}, MinTrials: math.MaxUint64}
	perBlock := make([]int, len(judged))
	var total float64
	for _, x := range reps {
		if x.err != nil {
			return nil, x.err
		}
		all := true
		for j, h := range x.holds {
			if h {
				out.Covered++
				perBlock[j]++
			} else {
				all = false
			}
			out.States[x.states[j].String()]++
		}
		if all {
			out.AllCovered++
		}
		total += float64(x.trials)
		out.MinTrials, out.MaxTrials = min(out.MinTrials, x.trials), max(out.MaxTrials, x.trials)
	}
	var ss float64
	for _, x := range reps {
		ss += sq(float64(x.trials) - total/float64(r))
	}
	if r > 1 {
		out.TrialsSD = math.Sqrt(ss / float64(r-1))
	}
	out.PerBlock = perBlock
	for _, jb := range judged {
		out.Names = append(out.Names, jb.w.Name)
	}
	pairs := r * len(judged)
	out.BlockCoverage = float64(out.Covered) / float64(pairs)
	out.CovLo, out.CovHi = stats.ClopperPearson(uint64(out.Covered), uint64(pairs), 0.95)
	out.MeanTrials = total / float64(r)
	worst := 0
	for j := range perBlock {
		if perBlock[j] < perBlock[worst] {
			worst = j
		}
	}
	out.WorstBlock, out.WorstCovered, out.WorstOut = judged[worst].w.Name, perBlock[worst], r-perBlock[worst]
	return out, nil
}
