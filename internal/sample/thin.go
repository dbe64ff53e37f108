// This file decides which runs of a repeated workload the in-process sampler samples.

package sample

import (
	"math/rand/v2"
	"time"

	"github.com/fragprof/fragprof/internal/stats"
)

// Thinning holds the in-process sampler's cost on a workload of repeated runs
// within a share of the program's CPU time by sampling only some of the runs, drawn
// at random, and running the others plainly. What a sampled run costs is its bursts
// and its reading of the mappings, which the library times, and the library's start,
// which no clock of the library sees (StartCost: about 0.1 ms on this project's VM,
// most of it the dynamic loader's floor for any preloaded library). The bursts keep
// to the share by themselves (Options.Overhead), the start cannot: on a run of 2 ms
// it alone is 5 %. So each run is sampled with probability
//
//	q = min(1, share · T / c),
//
// T the program's own CPU time per run and c the sampler's mean cost per sampled
// run, both learned from the runs so far, so that the expected cost of a run, q·c,
// is at most share·T. T is the plain runs' mean CPU time when there are some, else
// the sampled runs' less their cost. The cost the sampler can see (the start, the
// bursts, the mappings) misses what the program pays for them (likely caches and
// the pages copied for breakpoints; not measured apart): on short runs of sqlite3,
// lua5.4, xz and a fragprof-built program the whole cost measured 1.6–2.2 times it
// (bench/sampling.sh). That part is taken to be paid once a run, as the
// start is: c is at first the bursts plus SeenShare⁻¹ times the start and the
// mappings, and once MeasureRuns runs of each kind have been made, the whole cost
// as the runs measure it: the difference d of the sampled and the plain runs' mean
// CPU times, which runs of one workload drawn at random into two groups measure
// without bias, taken at its one-sided upper 95% confidence bound (MeasuredBound),
// so that a difference that happens to fall low does not spend more than the
// share; the bound nears d as the runs accumulate. It replaces the cost seen, whose
// start is one noisy measurement (69–181 µs on true(1) from one measurement to the
// next) and can exceed the whole (sqlite3: 209 µs seen, 164 µs measured over 60,000 runs).
// Runs of a few milliseconds are thinned most; runs long enough for
// the start to be small beside share·T are nearly all sampled, their bursts held to
// the share by Options.Overhead. The batches of the sampled runs are an unbiased
// sample of the workload's, fewer by q (--until-similarity runs until they
// suffice). The first run is always sampled. Draws come from the seed.
type Thinning struct {
	Share float64       // the budget: at most this share of the program's CPU time
	Start time.Duration // the library's start in each sampled run (StartCost)

	rng          *rand.Rand
	sampled      int           // runs sampled so far
	sampledCPU   time.Duration // their CPU time, the sampler's included
	sampledBurst time.Duration // the sampler's cost in their bursts, as it measured it
	sampledSetup time.Duration // and outside them (the mappings)
	sampledMom   stats.Moments // their CPU times' moments, in s
	plain        int           // runs left plain so far
	plainCPU     time.Duration // their CPU time
	plainMom     stats.Moments // their CPU times' moments, in s
}

// NewThinning returns the policy for the given share (0 or less: sample every run),
// start cost and seed.
func NewThinning(share float64, start time.Duration, seed uint64) *Thinning {
	return &Thinning{Share: share, Start: start, rng: rand.New(rand.NewPCG(seed, 0x7468696e))}
}

// Rate returns q, the probability that the next run is sampled.
func (t *Thinning) Rate() float64 {
	if t.Share <= 0 || t.sampled == 0 {
		return 1
	}
	n := float64(t.sampled)
	once := float64(t.Start) + float64(t.sampledSetup)/n // paid once a run
	bursts := float64(t.sampledBurst) / n
	c := once/SeenShare + bursts
	if m, ok := t.MeasuredBound(); ok {
		c = float64(m)
	}
	if c <= 0 {
		return 1
	}
	var per float64 // the program's own CPU time per run
	if t.plain > 0 {
		per = float64(t.plainCPU) / float64(t.plain)
	} else {
		per = (float64(t.sampledCPU)-float64(t.sampledBurst+t.sampledSetup))/n - float64(t.Start)
	}
	return min(1, max(t.Share*per/c, 0))
}

// Next reports whether the next run is to be sampled: always the first, then with
// probability Rate.
func (t *Thinning) Next() bool {
	u := t.rng.Float64() // drawn for every run, so that the draws do not depend on q
	return t.sampled == 0 || u < t.Rate()
}

// Sampled records a sampled run: its CPU time and the sampler's cost measured in it,
// in its bursts (Stats.SelfCost) and outside them (Stats.SetupCost).
func (t *Thinning) Sampled(cpu, bursts, setup time.Duration) {
	t.sampled++
	t.sampledCPU += cpu
	t.sampledBurst += bursts
	t.sampledSetup += setup
	t.sampledMom.Add(cpu.Seconds())
}

// Plain records a run left plain: its CPU time.
func (t *Thinning) Plain(cpu time.Duration) {
	t.plain++
	t.plainCPU += cpu
	t.plainMom.Add(cpu.Seconds())
}

// SeenShare is the share of its whole cost that the sampler sees on short runs,
// taken until runs measure it (Thinning): 1/2.2 to 1/1.6 on the programs of
// bench/sampling.sh. It divides the start and the mappings, what a run pays once.
const SeenShare = 0.5

// MeasureRuns is the number of sampled and of plain runs from which Measured
// measures the sampler's cost.
const MeasureRuns = 20

// Measured returns the sampler's whole cost per sampled run as the runs measure it,
// the sampled runs' mean CPU time less the plain runs'; ok is false before
// MeasureRuns runs of each kind.
func (t *Thinning) Measured() (cost time.Duration, ok bool) {
	if t.sampled < MeasureRuns || t.plain < MeasureRuns {
		return 0, false
	}
	return t.sampledCPU/time.Duration(t.sampled) - t.plainCPU/time.Duration(t.plain), true
}

// MeasuredBound returns the one-sided upper 95% confidence bound of the sampler's
// whole cost per sampled run, d + t₀.₉₅(ν)·√(s²_S/n_S + s²_P/n_P): d the
// difference of the sampled and plain runs' mean CPU times (Measured), with Welch's
// margin over the two groups of runs (stats.WelchMargin). CPU times are skewed to
// the right, so the bound covers a little less than 95%: 92.6% at 20 runs of each
// kind, 94.3% at 200, on 4,000 simulated workloads of exponential scatter
// (TestMeasuredBoundCoverage). ok is false before MeasureRuns runs of each kind.
func (t *Thinning) MeasuredBound() (bound time.Duration, ok bool) {
	d, ok := t.Measured()
	if !ok {
		return 0, false
	}
	return d + time.Duration(stats.WelchMargin(t.sampledMom, t.plainMom, 0.95)*1e9), true
}
