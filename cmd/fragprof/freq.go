// This file implements the flags of `fragprof freq`; freq_run.go does the work.

package main

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// freqFlags are the flags of freq.
type freqFlags struct {
	build                              buildFlags
	in                                 inputFlags
	binary, format, outFile, isolation string
	rule, moment, fn, htmlFile         string
	profFile, shardSpec, design        string
	unit                               int
	only                               []string
	jsonOut, failNonZero, from         bool
	exhaustive                         bool
	eps, relEps, gamma, c0, ignoreRare float64
	maxFail                            float64
	nmin, maxTrials                    uint64
	maxTime, trialTimeout              time.Duration
	jobs                               int
	replay                             string
	cl                                 clusterFlags
	// model is the inputs the flags give (inputFlags.model), read by plan.
	model *dist.File
}

func newFreqCmd(e *env) *cobra.Command {
	var f freqFlags
	c := &cobra.Command{
		Use:   "freq [flags] FILE.c... | freq --binary PROG [flags] | freq --from FILE.fpp... [flags] | freq --status|--resume DIR",
		Short: "Estimate every block's expected execution count under input distributions (Monte Carlo)",
		Long: `Freq estimates the expected execution count e(b) of every basic block — how many
times it runs per execution, on average over the distribution of the inputs — by
FreqSys's Monte Carlo method: it runs independent trials, each a fresh process on
inputs drawn from the given distributions, and stops when every block's estimate is
known to ±ε (or ±rel-eps·e) with confidence γ.

The stopping rule (--rule; docs/statistics.md gives formulas, sources and the
coverage each reaches in the laboratory of bench/coverage.sh):
  clt          the default. After each trial, with n trials, mean x̄, standard
               deviation s and skewness G1 of a block's counts — taken with one
               more trial as large as the largest seen, so that a heavy tail
               the sample barely shows counts —, the block converges when
               t·s/√n ≤ ε (Student's t at 1 − (1 − γ)/2, Chow & Robbins 1965)
               and the skewness term of the Edgeworth expansion of the interval's
               coverage is at most (1 − γ)/10 (Hall 1992; at 95 % about
               n > 50·G1²). While that skewness guard fails, the block is judged
               by the wider interval of the anytime rule instead. A block that runs at
               most once per trial gets the exact Clopper–Pearson interval. Its
               intervals hold at the point where the rule stops, or at a number of
               trials fixed in advance.
  anytime      an asymptotic confidence sequence (Waudby-Smith et al. 2024): its
               intervals hold at every n at once, so also when you stop the run by
               Ctrl-C or --max-time after watching the estimates; about 2.4× the
               trials of clt.
  bernstein    empirical Bernstein bounds over the observed range (Maurer & Pontil
               2009), time-uniform; many times the trials.
  freqsys-absolute, freqsys-signed
               FreqSys's Algorithm 1: n > (u/ε)²·s² and the Berry–Esseen check
               C0·m3/(s³√n) ≤ (1 − γ)/10 with the absolute third moment (rigorous;
               at least 9,017 trials for any block that varies) or the signed one
               as the paper prints it (not rigorous; it reproduces the paper's 36
               trials for Newton). --berry-esseen M is --rule freqsys-M.

Every block ends in one state:
  converged     estimate ± half-width at γ (and the trial at which it converged)
  constant      the same count in every trial: exact for the trials run; a count
                other than it occurs in fewer than 1 − (α/2)^{1/n} (≈ 3.7/n at 95 %)
                of runs, α = 1 − γ
  unseen        ran in no trial: it runs in fewer than 1 − (α/2)^{1/n} of
                executions (the rule of three, at 1 − α/2)
  rare          ran in too few trials to be estimated within the budget, or less
                often than --ignore-rare: the report bounds how often it runs
                (Clopper–Pearson)
  inadequate    (FreqSys rules) the Berry–Esseen condition cannot be met in budget
  unconverged   the budget ran out first; the report says how many trials it needs
--only FUNC makes only the blocks of FUNC decide when the run stops, and
--ignore-rare P lets blocks that run in fewer than a fraction P of executions stop
holding it, so that one rare block does not spend the budget.

Inputs reach the program through stdin (--stdin), its arguments (--arg) and named
files (--file), rendered per trial from templates such as '{ask}\n' or '{a:%.3f}'.
Trial i's inputs depend only on the seed and i, and results are folded in trial
order, so the same seed gives the same report whatever --jobs is.

Design (--design). By default the trials come in Latin hypercube units of 16
(McKay, Beckman & Conover 1979): within each unit, every numeric scalar input takes
one value in each sixteenth of its distribution, in a random order of its own, so
a count that depends on the inputs (a loop over n, a branch on x) varies less from
unit to unit than from trial to trial; every trial still has exactly the input
distribution. Arrays' elements and strings are drawn independently. A block is
judged on its counts summed over each complete unit (the units are independent),
or, whichever converges first, on the trials as if they were independent (which
overstates the variance wherever the design helps, and understates it by at most
16/15). In the laboratory this kept coverage
≥ γ on every model and saved 1.05–5.3× the trials of independent draws (1.0× where
the stratified inputs do not explain the count); docs/statistics.md has the table.
--design latin:M sets the unit, --design independent gives FreqSys's independent
trials. The FreqSys rules, the anytime and bernstein rules (whose guarantee at every
n is proven for independent trials) and the cluster engine run independent trials
unless --design says otherwise (the cluster and FreqSys refuse units).

Strata. A population given strata, file("glob"; strata = dir), strata = size(…)
or rows("calls.csv"; strata = COLUMN), is drawn stratum by stratum, each without
replacement, and judged by the stratified mean with each stratum's finite-population
correction (Cochran 1977, ch. 5); the report gives each stratum's trials. The
trials are shared in proportion to the strata's sizes, or, with alloc = neyman,
in proportion to N_h·S_h in rounds, each planned from the counts of all the
trials before it (so the same seed gives the same report on any --jobs); Neyman's
allocation runs on one machine (not --shard or --engine slurm). --engine slurm and
--from judge profiles, which keep no strata: there the blocks of a proportional run
are judged by the rule on all the trials, and freq says so. With nothing else
random the trials are independent unless --design says otherwise; beside a numeric
input the Latin hypercube units judge the run, proportional allocation only.

Failures. A trial that times out, crashes, or (with --fail-nonzero) exits non-zero
is left out, tallied by cause and listed with the command that replays it
(--replay N; after the pilot of alloc = neyman, --replay N:H:K, the trial with
its stratum H and its draw K from it, whose member depends on the seed, H and K
alone). When more than --max-fail of the trials fail (10 %, counted from the
100th trial on), freq stops with the tally, one replay command per cause, and exit
status 1; when every trial fails it is an error. Trials that exit non-zero but are
used are tallied in the report with a warning. Progress (trials, the block that
decides the budget, the trials and time it projects) is shown on stderr when it is
a terminal; Ctrl-C stops and prints the partial result, marked "interrupted", and
fragprof exits 130 (SIGTERM: "terminated", 143), during the build too.

Exhaustive runs. --exhaustive runs trials 0 … N−1 of a finite population of N
members (file("glob"), lines("file") or rows("file.csv"), drawn without
replacement; docs/inputs.md), so each member runs exactly once, in the order of the
seed's shuffle: the estimates are the population's means with no sampling error,
every block's state is exact (± 0), and --profile writes the exact answer (the
counts summed over the members). The inputs must have one such population and
nothing drawn at random besides it (constants and the columns of its rows are
fine): freq says which input is in the way. With --shard I/K a process runs the
members of trials I, I+K, ... < N, and the K profiles merge into the exact one
(freq --from on the merge says exact); with --engine slurm the members run as one
round of --shards tasks, resumable (--resume), and the cluster's profile is, bit
for bit, the local one. A member that fails is named (its file, line or row) with
the command that replays it, and freq exits 1: the estimates and the profile are
then of the other members only. A progress line counts the members done and the
time left (on a terminal; otherwise a line every 30 s, and --engine slurm a line
per task done).

Shards. --profile FILE also writes the run as a profile file: every block's and
edge's count summed over the trials used (runs = trials), plus the statistics
section, each block's exact distribution of per-trial counts (docs/profile-format.md).
--shard I/K runs only trials I, I+K, I+2K, ... of the seed's sequence (trial t's
inputs still depend only on the seed and t; with Latin hypercube units, units I,
I+K, ... of 16 trials), so K processes, on any machines, with the same seed and
inputs and shards 0/K ... K−1/K run disjoint trials. In a shard,
--max-trials counts the shard's own trials, and the stopping rule is applied to the
shard alone (a shard may stop early, or report blocks unconverged that the whole
would decide). Merge the shards' profiles with 'fragprof merge' — the distributions
merge exactly, to the same bits as one run of all their trials — and judge the
merged distributions with --from: it reads one or more profiles written by
freq --profile (merging them itself when there are several), applies the stopping
rule of the command line to every block on all their trials, and prints the same
report (--format text, json or dot). A profile holds per-trial counts, not the
units' sums: --from judges the trials as independent, which for units is valid
but gives wider intervals than the run itself. A profile does not keep the convergence series,
the trial at which a block converged, or the failed trials; the report says so.

Clusters. --engine slurm runs the trials as Slurm array jobs in adaptive rounds:
fragprof builds the program once and copies it and itself into --workdir (a
directory the nodes share); each round is one array of --shards K tasks, task i
running 'fragprof freq --binary ... --shard i/K --trial-range FROM:TO --profile ...'
on its share of the round's trials. After a round the shares are merged exactly,
the stopping rule judges all trials so far, and the next round is sized from the
trials the open blocks still need; trial numbers continue, so the result is, bit
for bit, that of one machine with the same seed and total trials. A task that
fails, times out or is preempted is resubmitted alone with the same trials (at
most --max-attempts times); a partial share is never merged. --max-fail is judged
on all the run's trials, as on one machine. A probe job checks that the tasks can
use the work directory before a round is submitted, and when fragprof stops (the
end, an error, Ctrl-C) it cancels the run's tasks still queued or running, unless
--leave-running. While it waits it names held jobs and nodes down or drained, with
the command that ends the wait. The work directory is the journal: --status DIR
(--json) shows the rounds, the tasks and the estimate so far, and --resume DIR
continues a run whose coordinator stopped. docs/scale.md has the set-up and the
costs.

Examples:
  fragprof freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' \
      --eps 0.3 --gamma 0.95
  fragprof freq prog.c --inputs model.toml --json -o est.json --report est.html
  fragprof freq prog.c --inputs model.toml --only parse --ignore-rare 1e-3
  fragprof freq --binary ./prog --inputs model.toml --jobs 8
  fragprof freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' --replay 17
  fragprof freq prog.c --inputs model.toml --shard 0/2 --max-trials 20000 --profile s0.fpp
  fragprof freq prog.c --inputs model.toml --shard 1/2 --max-trials 20000 --profile s1.fpp
  fragprof merge s0.fpp s1.fpp -o all.fpp && fragprof freq --from all.fpp --eps 0.3
  fragprof freq prog.c --inputs model.toml --eps 0.1 --engine slurm --shards 64 \
      --partition batch --time 00:20:00 --workdir /scratch/run1
  fragprof freq --status /scratch/run1`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error { return f.run(e, c, args) },
	}
	f.build.add(c)
	f.in.add(c)
	fs := c.Flags()
	fs.StringVar(&f.binary, "binary", "", "use `PROG`, a program built by 'fragprof cc', instead of building C files")
	fs.StringVar(&f.fn, "func", "", "study one function `NAME` without the program's main: its parameters and the globals it uses take --input values by their C names")
	fs.Float64Var(&f.eps, "eps", 0, "absolute precision ε > 0: every estimate to ±ε (default: --rel-eps)")
	fs.Float64Var(&f.relEps, "rel-eps", 0.01, "relative precision > 0, used when --eps is not given: ±rel-eps·estimate")
	fs.Float64Var(&f.gamma, "gamma", 0.95, "confidence γ of the intervals, 0 < γ < 1")
	fs.StringVar(&f.rule, "rule", stopping.Default, "stopping `RULE`: "+strings.Join(stopping.Names, ", ")+" (see above)")
	fs.StringSliceVar(&f.only, "only", nil, "only the blocks of function `FUNC` decide when to stop (repeatable, or comma-separated); the others are estimated with what those need")
	fs.Float64Var(&f.ignoreRare, "ignore-rare", 0, "blocks that run in fewer than a fraction `P` of executions (at confidence γ) do not hold the run: they are reported rare")
	fs.Uint64Var(&f.nmin, "n-min", 30, "trials before any decision (the paper's 30)")
	fs.Float64Var(&f.c0, "c0", 0.4748, "the Berry–Esseen constant C0 of the FreqSys rules (Shevtsova 2011)")
	fs.StringVar(&f.moment, "berry-esseen", "", "`absolute` or `signed`: the same as --rule freqsys-absolute or freqsys-signed")
	fs.Uint64Var(&f.maxTrials, "max-trials", 1_000_000, "trial budget; blocks still open then are reported unconverged (or rare)")
	fs.DurationVar(&f.maxTime, "max-time", 0, "time budget (e.g. 30s, 5m); 0: none")
	fs.IntVar(&f.jobs, "jobs", runtime.NumCPU(), "trials run in parallel")
	fs.StringVar(&f.isolation, "isolation", "fork", "fork (a fresh process per trial, from a fork server), exec (a new exec per trial), or none (one process; only for code without global state)")
	fs.DurationVar(&f.trialTimeout, "trial-timeout", 10*time.Second, "a trial running longer is killed and listed")
	fs.BoolVar(&f.failNonZero, "fail-nonzero", false, "leave out trials that exit with a non-zero status (by default their counts are used)")
	fs.Float64Var(&f.maxFail, "max-fail", 0.1, "stop when more than this `FRACTION` of the trials fail (counted from the 100th trial on); 1: never")
	fs.StringVar(&f.replay, "replay", "", "run trial `N` once, with its inputs shown and the program's output passed through; N:H:K, as a run of alloc = neyman names its trials after the pilot, also gives its stratum H and draw K")
	fs.BoolVar(&f.jsonOut, "json", false, "the same as --format json")
	fs.StringVar(&f.format, "format", "text", "report `FORMAT`: text, json (docs/json.md) or dot (the CFG with estimates)")
	fs.StringVarP(&f.outFile, "output", "o", "", "write the report to `FILE` instead of stderr (atomically)")
	fs.StringVar(&f.htmlFile, "report", "", "also write the HTML page of the estimates ('fragprof report') to `FILE`")
	fs.StringVar(&f.profFile, "profile", "", "also write the run to the profile file `FILE` (atomically): counts summed over the trials, and each block's exact count distribution, for merge and --from")
	markOutput(c, outputFile, "report", "profile")
	fs.StringVar(&f.design, "design", "latin", "how the trials' inputs are drawn, the `DESIGN`: latin[:M] (Latin hypercube units of M trials, 16 by default) or independent (see above); the FreqSys, anytime and bernstein rules and --engine slurm draw independent trials unless told")
	fs.StringVar(&f.shardSpec, "shard", "", "run only shard `I/K` of the trials: trials I, I+K, I+2K, ...; --max-trials and the stopping rule then apply to this shard alone")
	fs.BoolVar(&f.exhaustive, "exhaustive", false, "run each member of the inputs' finite population (file(), lines(), rows()) once, and nothing else: the exact expected counts (see above)")
	fs.BoolVar(&f.from, "from", false, "judge profiles written by freq --profile (the arguments, merged exactly) by the stopping rule, instead of running trials")
	f.cl.add(c)
	return c
}

// stoppingRule checks the numbers of the command line and returns the rule they
// ask for. Every number out of range is refused with its valid range (an --eps of
// 0 is not a request for the relative default).
func (f *freqFlags) stoppingRule(c *cobra.Command) (stopping.Rule, error) {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	changed := c.Flags().Changed
	switch {
	case changed("eps") && (bad(f.eps) || f.eps <= 0):
		return nil, usagef("freq: --eps %v: want an absolute precision > 0 (or --rel-eps for a relative one)", f.eps)
	case changed("eps") && f.eps > math.MaxUint64:
		return nil, usagef("freq: --eps %v: want a precision of at most %.3g, the largest count a run can have (2⁶⁴−1)", f.eps, float64(math.MaxUint64))
	case changed("eps") && changed("rel-eps"):
		return nil, usagef("freq: give --eps or --rel-eps, not both")
	case bad(f.relEps) || f.relEps <= 0:
		return nil, usagef("freq: --rel-eps %v: want a relative precision > 0, e.g. 0.01 for ±1 %%", f.relEps)
	case !(f.gamma > 0 && f.gamma < 1):
		return nil, usagef("freq: --gamma %v: want a confidence with 0 < gamma < 1, e.g. 0.95", f.gamma)
	case !(f.ignoreRare >= 0 && f.ignoreRare < 1):
		return nil, usagef("freq: --ignore-rare %v: want a probability with 0 ≤ P < 1, e.g. 1e-3", f.ignoreRare)
	case !(f.maxFail > 0 && f.maxFail <= 1):
		return nil, usagef("freq: --max-fail %v: want a fraction with 0 < FRACTION ≤ 1", f.maxFail)
	case f.nmin < 1:
		return nil, usagef("freq: --n-min 0: want at least 1 trial")
	case bad(f.c0) || f.c0 <= 0:
		return nil, usagef("freq: --c0 %v: want a Berry–Esseen constant > 0 (0.4097 < C0 ≤ 0.4748)", f.c0)
	}
	name := f.rule
	if f.moment != "" {
		if f.moment != "absolute" && f.moment != "signed" {
			return nil, usagef("freq: --berry-esseen %q: want absolute or signed", f.moment)
		}
		if changed("rule") && f.rule != "freqsys-"+f.moment {
			return nil, usagef("freq: --berry-esseen %s contradicts --rule %s", f.moment, f.rule)
		}
		name = "freqsys-" + f.moment
	}
	if !slices.Contains(stopping.Names, name) {
		return nil, usagef("freq: --rule %q: want one of %s", name, strings.Join(stopping.Names, ", "))
	}
	th := stats.DefaultThresholds
	th.Eps, th.Gamma, th.NMin, th.C0, th.IgnoreRare = f.eps, f.gamma, f.nmin, f.c0, f.ignoreRare
	if !changed("eps") {
		th.Eps, th.RelEps = 0, f.relEps
	}
	// A block is inadequate or rare when it would need more than max(budget, 10⁶)
	// trials: a small budget alone does not make a block rare, only unconverged.
	th.MaxTrials = max(f.maxTrials, stats.DefaultThresholds.MaxTrials)
	r, err := stopping.New(name, th)
	if err != nil {
		return nil, usagef("freq: %v", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "stats: "), "stopping: "))
	}
	return r, nil
}

// checkArgs checks the flags that do not concern the rule.
func (f *freqFlags) checkArgs(c *cobra.Command, args []string) (shard, shards uint64, iso montecarlo.Isolation, err error) {
	if f.from {
		if len(args) == 0 {
			return 0, 0, 0, usagef("freq: --from needs the profile files to judge")
		}
		for _, fl := range []string{"binary", "shard", "replay", "func", "report", "only"} {
			if c.Flags().Changed(fl) {
				return 0, 0, 0, usagef("freq: --from judges stored profiles: --%s does not apply", fl)
			}
		}
	} else if f.binary == "" && len(args) == 0 {
		return 0, 0, 0, usagef("freq: name the C files to build, or --binary PROG")
	}
	if f.jobs < 1 {
		return 0, 0, 0, usagef("freq: --jobs %d: want at least 1 (the trials run in parallel; the default is one per CPU, %d here)", f.jobs, runtime.NumCPU())
	}
	if f.shardSpec != "" {
		if shard, shards, err = parseShard(f.shardSpec); err != nil {
			return 0, 0, 0, usagef("freq: --shard: %v", err)
		}
	}
	if f.binary != "" && len(args) > 0 {
		return 0, 0, 0, usagef("freq: --binary takes no C files (got %v)", args)
	}
	if f.jsonOut {
		f.format = "json"
	}
	if f.format != "text" && f.format != "json" && f.format != "dot" {
		return 0, 0, 0, usagef("freq: --format %q: want text, json or dot", f.format)
	}
	if iso, err = montecarlo.ParseIsolation(f.isolation); err != nil {
		return 0, 0, 0, usagef("freq: --isolation: %v", err)
	}
	rule := f.rule
	if f.moment != "" {
		rule = "freqsys-" + f.moment
	}
	if f.unit, err = montecarlo.DesignUnit(f.design, c.Flags().Changed("design"), rule, f.cl.engine != "local" || f.cl.trials != ""); err != nil {
		return 0, 0, 0, usagef("freq: %v", err)
	}
	if f.exhaustive {
		for _, fl := range []string{"from", "max-trials", "max-time", "only", "trial-range", "replay"} {
			if c.Flags().Changed(fl) {
				return 0, 0, 0, usagef("freq: --exhaustive runs each member of the population once: --%s does not apply", fl)
			}
		}
		if c.Flags().Changed("design") && f.unit != 1 {
			return 0, 0, 0, usagef("freq: --exhaustive runs each member of the population once: --design %s does not apply (a population is drawn without replacement whatever the design)", f.design)
		}
		f.unit = 1
	}
	if f.from && c.Flags().Changed("design") {
		return 0, 0, 0, usagef("freq: --from judges stored profiles: --design does not apply (a profile holds per-trial counts, which the rule judges as independent trials, valid for Latin hypercube units too)")
	}
	return shard, shards, iso, nil
}
