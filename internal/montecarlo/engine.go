// Package montecarlo estimates the expected execution count e(b) of every basic block
// of a program under distributions of its inputs, by FreqSys's method (docs/methods.md):
// independent trials on fresh process images, streaming statistics per block, and a
// stopping rule (package stopping) that ends the run when every block is known to ±ε
// with confidence γ, or reported constant, unseen, rare or unconverged.
//
// Trials run on several workers; their results are folded in trial order, and the
// rule is consulted at points that depend only on the number of trials folded, so
// the same seed gives the same report whatever the number of workers.
//
// A Plan lays out a run from freq's settings (a whole run, a shard, a cluster
// task's share or its coordinator's judging, an exhaustive run, a finite or
// stratified population) as a Config; DesignUnit and PrepareStrata choose the
// trials' design.
package montecarlo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// An Outcome is what one trial produced.
type Outcome struct {
	// Prog is the program the counts are about; every trial of a run must report the
	// same *cfg.Func values in the same order.
	Prog *cfg.Program
	// Counts is parallel to Prog.Funcs, nil when the trial failed; a function that
	// did not run may have the zero cfg.Counts (nil slices: dump.SparseProfile).
	Counts []cfg.Counts
	// Failure says why the trial's counts cannot be used ("" when they can): a
	// timeout, a crash, an excluded exit status, no dump.
	Failure string
	// Cause classes a failure for the tally: "timeout", "signal SIGSEGV",
	// "exit status 1", "no counts", "fork server died".
	Cause string
	Exit  int // the exit status (128+signal when killed)
}

// A Worker runs trials; each worker is used by one goroutine at a time.
type Worker interface {
	// Trials runs the trials numbered is, in order, and returns one Outcome for
	// each; given several, a worker may overlap them (a fork server reads the next
	// request while the client digests the last reply). An error means the worker is
	// broken; a trial that went wrong is an Outcome with a Failure.
	Trials(ctx context.Context, is []uint64) ([]Outcome, error)
	Close() error
}

// Batches: a worker is handed consecutive trials, as many as last took about
// batchSpan (at most maxBatch) and at least two, so that cheap trials flow without
// a round trip each, and a fork server runs the next trial while its client reads
// and reconstructs the counts of the last (with one trial a batch the two took
// turns: on sqlite3, 10 % of a trial's time), while a run of slow ones never
// overshoots its stopping point by more than about batchSpan, or one trial, per
// worker. Batching changes which worker runs a trial, never the result: outcomes
// are folded in trial order and those past the stop are dropped.
const (
	batchSpan = 5 * time.Millisecond
	maxBatch  = 16
)

// nextBatch returns the batch size after a batch of n trials that took d.
func nextBatch(n int, d time.Duration) int {
	if d <= 0 {
		return maxBatch
	}
	return max(2, min(maxBatch, int(batchSpan*time.Duration(n)/d)))
}

// Config controls a run.
type Config struct {
	Rule      stopping.Rule
	MaxTrials uint64        // the budget; 0: the rule's MaxTrials
	MaxTime   time.Duration // 0: none
	// NewWorker starts worker k (0 ≤ k < Jobs).
	NewWorker func(k int) (Worker, error)
	Jobs      int
	// MaxFailRate stops the run when more than this fraction of the trials have
	// failed, counted from FailWindow trials on: with the defaults 0.1 and 100,
	// more than 10 failures in the first 100 trials, or more than 10 % of the
	// trials after (0: 0.1; 1 or more: never).
	MaxFailRate float64
	FailWindow  uint64 // 0: 100
	// Only, when not empty, names the functions whose blocks decide when the run
	// stops; the others are estimated all the same but wait for no one.
	Only []string
	// Progress, when set, is called from the folding goroutine every so often.
	Progress func(Progress)
	// SeriesPoints bounds each block's convergence series (0: 400).
	SeriesPoints int
	// Shard and Shards select a shard of the trials: with Shards > 1 this run's
	// i-th trial is trial number Shard + i·Shards (i = 0, 1, 2, ...), so that K runs
	// with Shard = 0..K−1 and the same seed together run trials 0, 1, 2, ... .
	// MaxTrials and the stopping rule apply to this shard alone; failures are
	// reported with their trial numbers. Shards 0 or 1: every trial.
	Shard, Shards uint64
	// First offsets the trial numbers: the i-th trial is First + Shard + i·Shards.
	// With Exhaust, the run does every one of its MaxTrials trials (the rule judges
	// the blocks at the end but never stops the run early): a slice of trials run by
	// a task of a cluster round (package cluster) is complete or useless.
	First   uint64
	Exhaust bool
	// Strata, when set, is the schedule of the model's stratified population
	// (dist.Model.Strata): trial i draws from stratum Strata.Stratum(i). Each
	// block then keeps its counts per stratum, and StrataRule (unless units judge
	// the run) judges it by the stratified mean ([stopping.Stratified]) where the
	// rule would judge its interval. Under Neyman's allocation the trials of a
	// round are started only once every trial before the round is folded, and
	// the round's allocation is planned from them (folder.plan): the same seed
	// gives the same trials, and the same report, on any number of workers.
	// Shards and First > 0 do not go with Neyman's allocation.
	Strata     *dist.Schedule
	StrataRule *stopping.Stratified
	// Unit, above 1, says that the workers draw the inputs as Latin hypercube units
	// of Unit consecutive trials (dist.Sample.SetUnit; Program.Unit). Units are
	// independent where trials within one are not, so blocks are judged from their
	// counts summed over the complete units as well ([stopping.Units]), at the same
	// check points. Shards then take whole units: unit Shard + j·Shards, for
	// j = 0, 1, ... .
	Unit uint64
}

// trialNumber maps the i-th trial of this run to its trial number.
func (c *Config) trialNumber(i uint64) uint64 {
	if c.Shards <= 1 {
		return c.First + i
	}
	m := max(c.Unit, 1)
	return c.First + (c.Shard+i/m*c.Shards)*m + i%m
}

// Progress is a snapshot for a progress line.
type Progress struct {
	Trials  uint64 // folded into the estimates
	Failed  uint64 // failed, not folded
	Elapsed time.Duration
	Decided int
	Blocks  int
	// Deciding is "function:label" of the undecided block that needs the most
	// trials by the rule's projection (Decision.Need), Need that projection and
	// HalfWidth its half-width now; Left estimates the time to reach Need at the
	// rate so far (0 when unknown).
	Deciding  string
	Need      float64
	HalfWidth float64
	Left      time.Duration
}

// A Point is one sample of a block's convergence: its estimate and half-width
// after N trials (FreqSys's "dynamics" of the estimate).
type Point struct {
	N         uint64  `json:"n"`
	Mean      float64 `json:"mean"`
	HalfWidth float64 `json:"halfwidth"`
}

// MarshalJSON writes a point as {"n", "mean", "halfwidth"}, with a null half-width
// where it is undefined (fewer than two trials).
func (p Point) MarshalJSON() ([]byte, error) {
	hw := "null"
	if !math.IsNaN(p.HalfWidth) && !math.IsInf(p.HalfWidth, 0) {
		hw = strconv.FormatFloat(p.HalfWidth, 'g', -1, 64)
	}
	return []byte(fmt.Sprintf(`{"n":%d,"mean":%s,"halfwidth":%s}`, p.N, strconv.FormatFloat(p.Mean, 'g', -1, 64), hw)), nil
}

// UnmarshalJSON reads what MarshalJSON writes, a null half-width as NaN.
func (p *Point) UnmarshalJSON(b []byte) error {
	var v struct {
		N         uint64   `json:"n"`
		Mean      float64  `json:"mean"`
		HalfWidth *float64 `json:"halfwidth"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Point{N: v.N, Mean: v.Mean, HalfWidth: math.NaN()}
	if v.HalfWidth != nil {
		p.HalfWidth = *v.HalfWidth
	}
	return nil
}

// A BlockEstimate is one block's result.
type BlockEstimate struct {
	Dist     *stats.CountDist
	Decision stats.Decision // the rule's verdict at the end of the run
	// DecidedAt is the number of trials when the block first converged (0 if it
	// never did); a converged block stays converged.
	DecidedAt uint64
	Series    []Point
}

// A Failure is a trial whose counts were not used.
type Failure struct {
	Trial  uint64
	Reason string
	Exit   int
}

// Result is the outcome of a run.
type Result struct {
	Prog   *cfg.Program
	Trials uint64            // trials folded into the estimates
	Blocks [][]BlockEstimate // [function][block]
	Edges  [][]stats.Moments // [function][edge]: the mean count of each edge
	// EdgeTotals [function][edge] is each edge's count summed over the trials folded,
	// exactly (what a profile stores); nil in a Result rebuilt from a profile
	// without counts.
	EdgeTotals [][]uint64
	Failures   []Failure
	// Causes tallies the failed trials by cause, in order of first appearance.
	Causes []Cause
	// Exits tallies the exit statuses of the trials whose counts were used (a
	// non-zero status is used unless the run leaves such trials out).
	Exits map[int]uint64
	// FailedOut is set when the run stopped because too many trials failed.
	FailedOut bool
	Stopped   string // why the run ended
	Elapsed   time.Duration
	Converged bool // every block that decides the stop (Config.Only) is decided
	// Unit is the number of trials of a Latin hypercube unit (1: independent
	// trials); Units how many complete units the estimates of varying blocks rest on.
	Unit, Units uint64
	// StrataTrials is the number of trials folded from each stratum of a
	// stratified population (Config.Strata), nil without strata.
	StrataTrials []uint64
	// StrataDists holds, for a stratified population, each block's count
	// distribution over the trials of each stratum: StrataDists[h][fi][b],
	// functions in the order of Blocks; nil without strata.
	StrataDists [][][]stats.CountDist
	// StrataNames and StrataSizes name the strata and give their sizes, for
	// Profile's strata section (the caller sets them on a run's result).
	StrataNames []string
	StrataSizes []uint64
}

// A Cause is one cause of failure with how many trials it took and the first of
// them (to replay).
type Cause struct {
	Cause  string
	Trials uint64
	First  uint64
}

// ErrNoTrials is returned when not a single trial could be used.
var ErrNoTrials = errors.New("montecarlo: no trial produced counts")

// Run runs trials until the rule decides every block, the budget or the time runs
// out, or ctx is cancelled (then the partial result is returned with Stopped saying
// so, and no error).
func Run(ctx context.Context, c Config) (*Result, error) {
	if c.Jobs < 1 {
		c.Jobs = 1
	}
	if c.Shards > 1 && c.Shard >= c.Shards {
		return nil, fmt.Errorf("montecarlo: shard %d of %d", c.Shard, c.Shards)
	}
	if c.MaxTrials == 0 {
		c.MaxTrials = c.Rule.Thresholds().MaxTrials
	}
	if c.MaxTrials == 0 {
		c.MaxTrials = math.MaxUint64
	}
	c.Jobs = int(min(uint64(c.Jobs), c.MaxTrials)) // no more workers than trials
	if c.MaxFailRate == 0 {
		c.MaxFailRate = 0.1
	}
	if c.FailWindow == 0 {
		c.FailWindow = 100
	}
	if c.SeriesPoints == 0 {
		c.SeriesPoints = 400
	}
	var judge *stopping.Units
	if c.Unit > 1 {
		if c.First%c.Unit != 0 {
			return nil, fmt.Errorf("montecarlo: the first trial %d is not the start of a unit of %d", c.First, c.Unit)
		}
		var err error
		if judge, err = stopping.NewUnits(c.Rule, c.Unit); err != nil {
			return nil, fmt.Errorf("montecarlo: %v", err)
		}
	}
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.MaxTime > 0 {
		var cancelT context.CancelFunc
		runCtx, cancelT = context.WithTimeout(runCtx, c.MaxTime)
		defer cancelT()
	}
	type result struct {
		i   uint64
		out Outcome
		err error
	}
	if c.Strata != nil && c.Strata.Alloc() == dist.Neyman && (c.Shards > 1 || c.First > 0) {
		return nil, fmt.Errorf("montecarlo: Neyman's allocation plans each round from all the trials before it: not on a shard of the trials")
	}
	results := make(chan result, 4*c.Jobs)
	var limit atomic.Uint64 // trials at and above limit are not started
	limit.Store(c.MaxTrials)
	g := newGate(runCtx, c.Strata)
	var wg sync.WaitGroup
	// None started once ctx has ended (Ctrl-C while fork servers start).
	for k := 0; k < c.Jobs && runCtx.Err() == nil; k++ {
		w, err := c.NewWorker(k)
		if err != nil {
			cancel()
			wg.Wait()
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Close()
			size := 2 // the server runs the second while the first's metadata is decoded
			var nums []uint64
			for runCtx.Err() == nil {
				lo, hi, ok := g.claim(uint64(size), &limit)
				if !ok {
					return
				}
				nums = nums[:0]
				for i := lo; i < hi; i++ {
					nums = append(nums, c.trialNumber(i))
				}
				t0 := time.Now()
				outs, err := w.Trials(runCtx, nums)
				if runCtx.Err() != nil {
					return // trials may have been killed by the cancellation
				}
				if err == nil && len(outs) != len(nums) {
					err = fmt.Errorf("the worker ran %d of %d trials", len(outs), len(nums))
				}
				if err != nil {
					results <- result{lo, Outcome{}, err}
					return
				}
				for k, out := range outs {
					results <- result{lo + uint64(k), out, nil}
				}
				size = nextBatch(len(nums), time.Since(t0))
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	f := &folder{c: c, judge: judge, gate: g}
	pending := map[uint64]result{}
	var expected uint64
	var fatal error
	lastProgress := time.Now()
	for r := range results {
		if fatal != nil || f.done {
			continue // drain
		}
		pending[r.i] = r
		for {
			p, ok := pending[expected]
			if !ok {
				break
			}
			delete(pending, expected)
			if p.err != nil {
				fatal = fmt.Errorf("trial %d: %v", c.trialNumber(p.i), p.err)
				break
			}
			if err := f.fold(c.trialNumber(p.i), p.out); err != nil {
				fatal = err
				break
			}
			expected++
			if f.done || expected >= c.MaxTrials {
				f.done = true
				limit.Store(0)
				cancel()
				break
			}
		}
		if fatal != nil {
			limit.Store(0)
			cancel()
		}
		if c.Progress != nil && time.Since(lastProgress) > 200*time.Millisecond && f.res != nil {
			lastProgress = time.Now()
			c.Progress(f.progress(start))
		}
	}
	if fatal != nil {
		return nil, fatal
	}
	if f.res == nil {
		if len(f.failures) > 0 {
			return nil, &NoTrialsError{Failures: f.failures, Causes: f.causes}
		}
		return nil, ErrNoTrials
	}
	res := f.finish()
	res.Unit = max(c.Unit, 1)
	if c.Strata != nil {
		res.StrataTrials = f.strataN
		res.StrataDists = f.strataDists()
	}
	res.Failures, res.Causes, res.Exits, res.FailedOut = f.failures, f.causes, f.exits, f.failedOut
	res.Elapsed = time.Since(start)
	switch {
	case f.stopReason != "":
		res.Stopped = f.stopReason
	case res.Converged:
		res.Stopped = "every block decided"
	case res.Trials >= c.MaxTrials:
		res.Stopped = fmt.Sprintf("trial budget (%d) spent", c.MaxTrials)
	case ctx.Err() != nil:
		res.Stopped = "interrupted"
	case c.MaxTime > 0 && time.Since(start) >= c.MaxTime:
		res.Stopped = fmt.Sprintf("time budget (%v) spent", c.MaxTime)
	default:
		res.Stopped = "stopped"
	}
	return res, nil
}

// NoTrialsError is returned when every trial failed: the failures and their tally.
type NoTrialsError struct {
	Failures []Failure
	Causes   []Cause
}

func (e *NoTrialsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "every trial failed (%d):", len(e.Failures))
	for _, c := range e.Causes {
		fmt.Fprintf(&b, " %s ×%d (first: trial %d);", c.Cause, c.Trials, c.First)
	}
	return strings.TrimSuffix(b.String(), ";")
}

func (e *NoTrialsError) Unwrap() error { return ErrNoTrials }

// folder accumulates trials in order and consults the rule.
type folder struct {
	c          Config
	res        *Result
	failures   []Failure
	causes     []Cause
	exits      map[int]uint64
	failedOut  bool
	watch      []bool // per function: its blocks decide the stop
	done       bool
	stopReason string
	seen       uint64 // trials folded, failed or not
	nextCheck  uint64
	decided    [][]bool
	// The convergence series' schedule is the same for every block: seriesNext is
	// its next point. A block that has not run yet has the same point as any other
	// (mean 0, the rule's bound on n zeros): those points are kept once, in
	// zeroSeries, and given to a block when it first runs (ran) or at the end. Most
	// blocks of a large program never run in a run's first trials (sqlite3: 90 %).
	seriesNext uint64
	zeroSeries []Point
	zero       stats.CountDist // n trials of a block that never ran
	ran        [][]bool
	// funcRan[fi] says that function fi ran in some trial (its counts were not
	// left out of a sparse profile): the blocks of the others all have the zero
	// point and decision, taken once for all of them.
	funcRan []bool
	// With Latin hypercube units (Config.Unit > 1): the judge of blocks, each
	// block's count summed over the current unit, the distribution of the complete
	// units' sums, how many there are, and whether a trial of the current unit
	// failed (then the unit is left out of the sums: its trials no longer stratify
	// the inputs).
	judge  *stopping.Units
	sums   [][]uint64
	units  [][]*stats.CountDist
	nunits uint64
	broken bool
	// Sparse folding: lag[fi] is the number of trials folded, the latest ones, in
	// which function fi did not run and that its blocks' distributions do not hold
	// yet (they are read with that many more zeros, and given them when the
	// function next runs or the run ends); ranInUnit and unitLag the same for the
	// units' sums. Most functions of a large program run in few trials.
	lag, unitLag []uint64
	ranInUnit    []bool
	// decisions[fi][b] is block b's last decision and the trials and units it was
	// taken on: the convergence series and the rule's check often judge a block
	// after the same trial (allocated per function when first judged).
	decisions [][]decision
	// judgeAt[fi][b] is the trial count before which the rule's check need not judge
	// block b again (check; allocated per function when first needed).
	judgeAt [][]uint64
	passed  [][2]int // check's buffer
	// due[fi] is the trial count before which no block of function fi needs judging
	// (the smallest judgeAt of its undecided blocks after its last check): check
	// passes over the whole function without reading its blocks. skipped is
	// check's buffer of the watched functions so passed over.
	due     []uint64
	skipped []int
	// Twins: rep[fi][b] is the first block of function fi whose count has equalled
	// block b's in every trial so far (b itself if none). Blocks with one
	// representative share its distributions (the same *stats.CountDist in
	// Result.Blocks and in units, unshared by finish) and its decisions, so a trial
	// folds and judges one count per class: of sqlite3's 10,000 blocks that run,
	// 2,900 classes remain after 300 trials. A trial that tells a block apart from
	// its representative gives it (and the other blocks of the class with its count)
	// a copy of the class's distributions before adding its own count (split).
	rep    [][]int32
	points []Point // series' buffer: the point of each representative
	// Repeats: a function whose counts in a trial equal those it was last folded
	// with is not folded at once: repeat[fi] more trials of last[fi] wait, and are
	// folded in one step, AddN(v, k) per class and a merge per edge, when the
	// function's distributions are next read or changed (flush), as the zeros of the
	// trials it did not run wait in lag. 691 of the 958 functions a SQLite workload
	// runs run alike in every trial. What is a repeat depends on the counts in trial
	// order only, so the edges' moments (merged, not added, whose last digits depend
	// on the grouping) are the same on any number of workers.
	last   []cfg.Counts
	repeat []uint64
	// Strata (Config.Strata): strataN[h] is the trials folded from stratum h,
	// strataDist[h][fi][b] block b's counts in them (nil until function fi runs
	// in one) and strataLag[h][fi] the trials of stratum h since then in which
	// fi did not run, whose zeros they do not hold yet. gate starts the trials
	// of a Neyman round once round (the next to plan) is planned.
	strataN    []uint64
	strataDist [][][]*stats.CountDist
	strataLag  [][]uint64
	gate       *gate
	round      int
}

// decision is a block's decision taken after trials trials and units units.
type decision struct {
	trials, units uint64
	d             stats.Decision
}

// split separates the blocks of function fi whose counts in this trial differ from
// their representatives' (see folder.rep), before the trial's counts are added:
// the blocks of a class that leave it with the same count form one new class, led
// by the first of them, with a copy of the old class's distributions.
func (f *folder) split(fi int, counts []uint64) {
	rep := f.rep[fi]
	var moved map[[2]uint64]int32 // (old representative, count) → new representative
	for b, v := range counts {
		r := rep[b]
		if int(r) == b || counts[r] == v {
			continue
		}
		key := [2]uint64{uint64(r), v}
		nr, ok := moved[key]
		if !ok {
			if moved == nil {
				moved = map[[2]uint64]int32{}
			}
			nr = int32(b)
			moved[key] = nr
			f.res.Blocks[fi][b].Dist = f.res.Blocks[fi][r].Dist.Clone()
			if f.units != nil {
				f.units[fi][b] = f.units[fi][r].Clone()
			}
		}
		rep[b] = nr
		f.res.Blocks[fi][b].Dist = f.res.Blocks[fi][nr].Dist
		if f.units != nil {
			f.units[fi][b] = f.units[fi][nr]
		}
	}
}

// flush folds the repeats of function fi that wait (see folder.repeat).
func (f *folder) flush(fi int) {
	k := f.repeat[fi]
	if k == 0 {
		return
	}
	f.repeat[fi] = 0
	c := f.last[fi]
	for b, v := range c.Blocks {
		if f.rep[fi][b] == int32(b) { // the twins are those of the trial repeated
			f.res.Blocks[fi][b].Dist.AddN(v, k)
		}
	}
	for e, v := range c.Edges {
		f.res.Edges[fi][e].Merge(stats.Moments{N: k, Mean: float64(v)})
	}
}

// summary is the summary of block b of function fi's per-trial counts.
func (f *folder) summary(fi, b int) stats.Summary {
	f.flush(fi)
	return f.res.Blocks[fi][b].Dist.SummaryZeros(f.lag[fi]) // shared by its twins
}

// settle gives function fi's distributions the zeros of the trials it lags.
func (f *folder) settle(fi int) {
	f.flush(fi)
	k := f.lag[fi]
	if k == 0 {
		return
	}
	for b := range f.res.Blocks[fi] {
		if f.rep[fi][b] == int32(b) {
			f.res.Blocks[fi][b].Dist.AddN(0, k)
		}
	}
	for e := range f.res.Edges[fi] {
		f.res.Edges[fi][e].Merge(stats.Moments{N: k})
	}
	f.lag[fi] = 0
}

func (f *folder) fold(i uint64, o Outcome) error {
	f.seen++
	if f.c.Strata != nil { // first: foldTrial's convergence series judges the blocks
		if err := f.foldStratum(i, o); err != nil {
			return err
		}
	}
	if err := f.foldTrial(i, o); err != nil {
		return err
	}
	if f.c.Strata != nil {
		if err := f.planRound(); err != nil {
			return err
		}
	}
	if f.judge != nil && f.seen%f.c.Unit == 0 {
		f.endUnit()
	}
	if o.Failure == "" && f.res.Trials >= f.nextCheck {
		f.check()
		f.nextCheck = stopping.NextCheck(f.res.Trials, f.c.Rule)
	}
	return nil
}

// endUnit folds the sums of the unit that just ended.
func (f *folder) endUnit() {
	broken := f.broken
	f.broken = false
	if f.res == nil || broken {
		for fi := range f.sums {
			clear(f.sums[fi])
			f.ranInUnit[fi] = false
		}
		return
	}
	for fi, sums := range f.sums {
		if !f.ranInUnit[fi] {
			f.unitLag[fi]++
			continue
		}
		f.ranInUnit[fi] = false
		for b, v := range sums {
			if f.rep[fi][b] == int32(b) { // a twin's sum is its representative's
				f.units[fi][b].AddN(0, f.unitLag[fi])
				f.units[fi][b].Add(v)
			}
		}
		f.unitLag[fi] = 0
		clear(sums)
	}
	f.nunits++
}

func (f *folder) foldTrial(i uint64, o Outcome) error {
	if o.Failure != "" {
		f.broken = true
		f.failures = append(f.failures, Failure{Trial: i, Reason: o.Failure, Exit: o.Exit})
		cause := o.Cause
		if cause == "" {
			cause = o.Failure
		}
		k := slices.IndexFunc(f.causes, func(c Cause) bool { return c.Cause == cause })
		if k < 0 {
			f.causes = append(f.causes, Cause{Cause: cause, First: i})
			k = len(f.causes) - 1
		}
		f.causes[k].Trials++
		// More than MaxFailRate of the trials so far, counted from FailWindow on.
		if float64(len(f.failures)) > f.c.MaxFailRate*float64(max(f.seen, f.c.FailWindow)) {
			f.done, f.failedOut = true, true
			f.stopReason = fmt.Sprintf("%d of %d trials failed: more than %g %% (--max-fail)", len(f.failures), f.seen, 100*f.c.MaxFailRate)
		}
		return nil
	}
	if f.exits == nil {
		f.exits = map[int]uint64{}
	}
	f.exits[o.Exit]++
	if f.res == nil {
		if err := f.start(o.Prog); err != nil {
			return err
		}
	}
	r := f.res
	if len(o.Prog.Funcs) != len(r.Prog.Funcs) {
		return fmt.Errorf("trial %d: the program changed during the run", i)
	}
	for fi, fn := range r.Prog.Funcs {
		if o.Prog.Funcs[fi] != fn && o.Prog.Funcs[fi].Checksum() != fn.Checksum() {
			return fmt.Errorf("trial %d: function %s changed during the run", i, fn.Name)
		}
		c := o.Counts[fi]
		if c.Blocks == nil { // did not run: its zeros are folded later
			f.lag[fi]++
			continue
		}
		// The units' sums and the edges' totals take every trial at once.
		if f.sums != nil {
			sums := f.sums[fi]
			for b, v := range c.Blocks {
				sums[b] += v
			}
			f.ranInUnit[fi] = true
		}
		for e, v := range c.Edges {
			t, carry := bits.Add64(r.EdgeTotals[fi][e], v, 0)
			if carry != 0 {
				return fmt.Errorf("trial %d: function %s: edge %d's total count overflows 64 bits", i, fn.Name, e)
			}
			r.EdgeTotals[fi][e] = t
		}
		if len(c.Blocks) > 0 && slices.Equal(c.Blocks, f.last[fi].Blocks) && slices.Equal(c.Edges, f.last[fi].Edges) {
			f.repeat[fi]++ // the same counts as its last fold's: folded later (flush)
			continue
		}
		f.settle(fi)
		f.last[fi] = c
		f.split(fi, c.Blocks)
		f.funcRan[fi] = true
		for b, v := range c.Blocks {
			if f.rep[fi][b] == int32(b) {
				r.Blocks[fi][b].Dist.Add(v)
			}
		}
		for e, v := range c.Edges {
			r.Edges[fi][e].Add(float64(v))
		}
	}
	r.Trials++
	f.series()
	return nil
}

// OnlyError says that a function named by Config.Only is not in the program.
type OnlyError struct {
	Name  string
	Funcs []string // the program's functions
}

func (e *OnlyError) Error() string {
	return fmt.Sprintf("no function %s in the program (it has %s)", e.Name, strings.Join(e.Funcs, ", "))
}

func (f *folder) start(p *cfg.Program) error {
	for _, name := range f.c.Only {
		if !slices.ContainsFunc(p.Funcs, func(fn *cfg.Func) bool { return fn.Name == name }) {
			var names []string
			for _, fn := range p.Funcs {
				names = append(names, fn.Name)
			}
			return &OnlyError{Name: name, Funcs: names}
		}
	}
	r := &Result{Prog: p}
	for _, fn := range p.Funcs {
		// Before any trial every block of a function is its entry's twin.
		bs := make([]BlockEstimate, len(fn.Blocks))
		shared := &stats.CountDist{}
		for b := range bs {
			bs[b].Dist = shared
		}
		f.rep = append(f.rep, make([]int32, len(fn.Blocks)))
		r.Blocks = append(r.Blocks, bs)
		r.Edges = append(r.Edges, make([]stats.Moments, len(fn.Edges)))
		r.EdgeTotals = append(r.EdgeTotals, make([]uint64, len(fn.Edges)))
		f.decided = append(f.decided, make([]bool, len(fn.Blocks)))
		f.ran = append(f.ran, make([]bool, len(fn.Blocks)))
		f.funcRan = append(f.funcRan, false)
		f.watch = append(f.watch, len(f.c.Only) == 0 || slices.Contains(f.c.Only, fn.Name))
		f.lag = append(f.lag, 0)
		f.last = append(f.last, cfg.Counts{})
		f.repeat = append(f.repeat, 0)
		f.decisions = append(f.decisions, nil)
		f.judgeAt = append(f.judgeAt, nil)
		f.due = append(f.due, 0)
		if f.judge != nil {
			f.unitLag = append(f.unitLag, 0)
			f.ranInUnit = append(f.ranInUnit, false)
			f.sums = append(f.sums, make([]uint64, len(fn.Blocks)))
			us := make([]*stats.CountDist, len(fn.Blocks))
			shared := &stats.CountDist{}
			for b := range us {
				us[b] = shared
			}
			f.units = append(f.units, us)
		}
	}
	f.res = r
	f.nextCheck = 1
	return nil
}

// check consults the rule on every block not yet converged and ends the run when
// all are decided.
//
// A block far from converging is not judged at every check: when the rule projects
// that it needs Need trials, well beyond the n it has, it is judged next halfway
// there, at n + (Need − n)/2 (a block decided for now, constant or unseen, at
// n + n/4), unless every other block is decided at a check, when the blocks passed
// over are judged at once. The run so stops at the same check as
// if every block were judged at every one (a block passed over was undecided when
// last judged, so the run could not have stopped without judging it), and a block
// far from its goal costs O(log Need) judgements instead of one per trial: with a
// precision that a large program's blocks reach late (sqlite3: 7,000 blocks run in
// a trial), judging them all at every trial was a third of fragprof's time. What
// can change is when a block is first marked converged (DecidedAt): at a later
// check, or never, if its estimate wandered back out of ε meanwhile; the run then
// goes on longer, never shorter. A function none of whose undecided blocks is due
// (due) is passed over whole, without reading its blocks.
func (f *folder) check() {
	all := true
	passed := f.passed[:0]   // watched blocks not judged at this check
	skipped := f.skipped[:0] // watched functions none of whose blocks was due
	// Every block that has not run yet has the same decision, taken once.
	var zero stats.Decision
	zeroDone := false
	n := f.res.Trials
	for fi := range f.res.Blocks {
		if !f.funcRan[fi] {
			if !zeroDone {
				zero, zeroDone = f.c.Rule.Decide(f.zero.Summary()), true
			}
			if zero.State != stats.Converged { // else mark its blocks below
				if !zero.State.Decided() && f.watch[fi] && len(f.res.Blocks[fi]) > 0 {
					all = false
				}
				continue
			}
		}
		if n < f.due[fi] {
			if f.watch[fi] {
				skipped = append(skipped, fi)
			}
			continue
		}
		due := uint64(math.MaxUint64)
		for b := range f.res.Blocks[fi] {
			if f.decided[fi][b] {
				continue
			}
			var d stats.Decision
			switch {
			case f.judgeAt[fi] != nil && n < f.judgeAt[fi][b]:
				if f.watch[fi] {
					passed = append(passed, [2]int{fi, b})
				}
				due = min(due, f.judgeAt[fi][b])
				continue
			case neverRan(f.res.Blocks[fi][b].Dist):
				if !zeroDone {
					zero, zeroDone = f.c.Rule.Decide(f.zero.Summary()), true
				}
				d = zero
			default:
				d = f.decide(fi, b)
			}
			all = f.judged(fi, b, d) && all
			if !f.decided[fi][b] {
				due = min(due, f.judgeAt[fi][b]) // judged sets it
			}
		}
		f.due[fi] = due
	}
	if all {
		for _, fi := range skipped {
			for b := range f.res.Blocks[fi] {
				if !f.decided[fi][b] {
					passed = append(passed, [2]int{fi, b})
				}
			}
			f.due[fi] = 0
		}
		for _, p := range passed {
			var d stats.Decision
			if neverRan(f.res.Blocks[p[0]][p[1]].Dist) {
				if !zeroDone {
					zero, zeroDone = f.c.Rule.Decide(f.zero.Summary()), true
				}
				d = zero
			} else {
				d = f.decide(p[0], p[1])
			}
			all = f.judged(p[0], p[1], d) && all
			if fi, b := p[0], p[1]; !f.decided[fi][b] {
				f.due[fi] = min(f.due[fi], f.judgeAt[fi][b])
			}
		}
	}
	f.passed, f.skipped = passed, skipped
	if all && !f.c.Exhaust {
		f.done = true
	}
}

// judged records the decision d taken at a check on block b of function fi, and
// reports whether the block lets the run stop.
func (f *folder) judged(fi, b int, d stats.Decision) bool {
	n := f.res.Trials
	switch {
	case d.State == stats.Converged:
		f.decided[fi][b] = true
		f.res.Blocks[fi][b].DecidedAt = n
	case d.State.Decided():
		// Constant, unseen, rare or inadequate: decided for now; a later trial may
		// still change it, which the judgement of the blocks passed over before the
		// run stops would find.
		f.judgeNext(fi, b, n+max(1, n/4))
	default:
		next := n + 1
		if d.Need > float64(n) && d.Need < math.MaxInt64 {
			next = n + max(1, uint64((d.Need-float64(n))/2))
		}
		f.judgeNext(fi, b, next)
		return !f.watch[fi]
	}
	return true
}

// judgeNext sets the trial count before which check passes over block b of fi.
func (f *folder) judgeNext(fi, b int, n uint64) {
	if f.judgeAt[fi] == nil {
		f.judgeAt[fi] = make([]uint64, len(f.res.Blocks[fi]))
	}
	f.judgeAt[fi][b] = n
}

// series records each block's convergence at thinned points: every trial up to 10,
// then at 20 % growth steps (28 points for 200 trials, about 75 for a million, some
// 12 a decade: enough for a plot on a logarithmic axis).
// Each point is a decision for every block that has run, the largest part of a
// trial's cost in fragprof for a large program (sqlite3: 7,000 blocks run in a
// trial), so the points are as few as a convergence plot needs.
func (f *folder) series() {
	n := f.res.Trials
	f.zero.Add(0)
	if n < f.seriesNext {
		return
	}
	for fi := range f.res.Blocks {
		if !f.funcRan[fi] {
			continue // every block's point is the zero point below
		}
		if cap(f.points) < len(f.res.Blocks[fi]) {
			f.points = make([]Point, len(f.res.Blocks[fi]))
		}
		points := f.points[:len(f.res.Blocks[fi])]
		for b := range f.res.Blocks[fi] {
			be := &f.res.Blocks[fi][b]
			if !f.ran[fi][b] {
				if neverRan(be.Dist) {
					continue // its point is the zero point below
				}
				f.ran[fi][b] = true
				be.Series = append(be.Series, f.zeroSeries...)
			}
			r := int(f.rep[fi][b]) // before b: its point is taken
			if r == b {
				points[b] = f.blockPoint(fi, b)
			}
			be.Series = append(be.Series, points[r])
		}
	}
	f.zeroSeries = append(f.zeroSeries, f.point(f.zero.Summary()))
	step := uint64(1)
	if n >= 10 {
		step = max(1, n/5)
	}
	f.seriesNext = n + step
}

// blockPoint is block b of function fi's point of the convergence series.
func (f *folder) blockPoint(fi, b int) Point {
	d := f.decide(fi, b)
	p := Point{N: f.res.Trials, Mean: d.Mean, HalfWidth: math.NaN()}
	if f.units != nil { // the decision's mean may be the complete units'
		p.Mean = f.summary(fi, b).Mean
	}
	if f.res.Trials >= 2 {
		p.HalfWidth = d.HalfWidth
	}
	return p
}

// point is a block's point of the convergence series on the trials so far.
func (f *folder) point(s stats.Summary) Point {
	hw := math.NaN()
	if s.N >= 2 {
		hw = f.c.Rule.Decide(s).HalfWidth
	}
	return Point{N: s.N, Mean: s.Mean, HalfWidth: hw}
}

// neverRan reports a block that ran in no trial.
func neverRan(d *stats.CountDist) bool {
	return len(d.Buckets) == 0 && (len(d.Values) == 0 || len(d.Values) == 1 && d.Values[0].V == 0)
}

func (f *folder) progress(start time.Time) Progress {
	p := Progress{Trials: f.res.Trials, Failed: uint64(len(f.failures)), Elapsed: time.Since(start)}
	for fi, fn := range f.res.Prog.Funcs {
		for b := range f.res.Blocks[fi] {
			p.Blocks++
			if f.decided[fi][b] {
				p.Decided++
				continue
			}
			d := f.decide(fi, b)
			if d.State.Decided() || !f.watch[fi] {
				p.Decided++
			} else if d.Need > p.Need || p.Deciding == "" {
				p.Need, p.HalfWidth = d.Need, d.HalfWidth
				p.Deciding = fn.Name + ":" + fn.Blocks[b].Label
			}
		}
	}
	p.Need = min(p.Need, float64(f.c.MaxTrials))
	if p.Deciding != "" && p.Need > float64(p.Trials) && p.Trials > 0 {
		perTrial := p.Elapsed.Seconds() / float64(f.seen)
		p.Left = time.Duration((p.Need - float64(p.Trials)) * perTrial * float64(time.Second))
	}
	return p
}

// finish takes the final decision of every block, on all trials folded.
func (f *folder) finish() *Result {
	r := f.res
	r.Converged = true
	r.Units = f.nunits
	for fi := range r.Blocks {
		f.settle(fi)
	}
	// The series of a block that never ran: the zero points and the last one, shared
	// (capacity-limited, so that an append copies).
	zs := f.zeroSeries
	if len(zs) == 0 || zs[len(zs)-1].N != r.Trials {
		zs = append(zs[:len(zs):len(zs)], f.point(f.zero.Summary()))
	}
	zs = zs[:len(zs):len(zs)]
	for fi := range r.Blocks {
		for b := range r.Blocks[fi] {
			be := &r.Blocks[fi][b]
			d := f.decide(fi, b)
			if f.decided[fi][b] && d.State == stats.Unconverged {
				// Converged earlier; its interval on all trials is reported, and
				// the state it reached stays.
				d.State = stats.Converged
			}
			be.Decision = d
			if d.State == stats.Unconverged && f.watch[fi] {
				r.Converged = false
			}
			switch {
			case f.ran[fi][b]:
			case neverRan(be.Dist):
				be.Series = zs
			default: // first ran after the series' last point
				be.Series = append(be.Series[:0:0], f.zeroSeries...)
			}
			if last := be.Series; len(last) == 0 || last[len(last)-1].N != r.Trials {
				be.Series = append(be.Series, Point{N: r.Trials, Mean: d.Mean, HalfWidth: d.HalfWidth})
			}
		}
		for b := range r.Blocks[fi] { // every block owns its distribution in a Result
			if f.rep[fi][b] != int32(b) {
				r.Blocks[fi][b].Dist = r.Blocks[fi][b].Dist.Clone()
			}
		}
	}
	return r
}

// decide returns the rule's verdict on block b of function fi: with Latin
// hypercube units, from its per-trial counts and their sums over the complete
// units ([stopping.Units]).
func (f *folder) decide(fi, b int) stats.Decision {
	b = int(f.rep[fi][b]) // twins share their decisions
	if f.decisions[fi] == nil {
		f.decisions[fi] = make([]decision, len(f.res.Blocks[fi]))
	}
	c := &f.decisions[fi][b]
	if c.trials == f.res.Trials && c.units == f.nunits && c.trials > 0 {
		return c.d
	}
	s := f.summary(fi, b)
	var d stats.Decision
	if f.units == nil {
		d = f.c.Rule.Decide(s)
		if f.c.StrataRule != nil && (d.State == stats.Unconverged || d.State == stats.Converged || d.State == stats.Exact) {
			d = f.c.StrataRule.Decide(f.strata(fi, b))
		}
	} else {
		d = f.judge.Decide(s, f.units[fi][b].SummaryZeros(f.unitLag[fi]))
	}
	*c = decision{trials: f.res.Trials, units: f.nunits, d: d}
	return d
}
