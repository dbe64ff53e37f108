// This file implements what `fragprof freq` does once its flags are read: building
// or checking the program, running the trials, judging stored profiles (--from),
// replaying a trial, and the progress line.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/harness"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/runner"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
	"github.com/fragprof/fragprof/profile"
)

// run is freq: it checks the flags, then judges profiles (--from), replays a trial
// (--replay), hands the run to a cluster (--engine slurm) or runs the trials of
// its plan (montecarlo.Plan), and writes the report.
func (f *freqFlags) run(e *env, c *cobra.Command, args []string) error {
	freqGC()
	if f.cl.status != "" || f.cl.resume != "" {
		return f.cl.statusOrResume(e, c)
	}
	plan, iso, err := f.plan(e, c, args)
	if err != nil || f.from {
		return err // --from: f.plan judged the profiles
	}
	dir, cleanup, err := workDir(e)
	if err != nil {
		return err
	}
	defer cleanup()
	intr := catchInterrupts()
	defer intr.stop()
	prog, counters, err := f.program(e, intr, args, iso, dir)
	if err != nil {
		return err
	}
	if plan.Members, err = f.members(prog.Inputs.Model); err != nil {
		return err
	}
	if f.cl.engine != "local" {
		return f.onCluster(e, c, args, plan, prog, counters)
	}
	if f.replay != "" {
		i, err := pinReplay(f.replay, plan.Strata)
		if err != nil {
			return err
		}
		return replayTrial(e, intr, prog, i, plan.Strata)
	}
	cfg, pop, err := plan.Config(prog.NewWorker)
	if es := (*montecarlo.EmptyShardError)(nil); errors.As(err, &es) {
		return usagef("freq: %v", es)
	} else if err != nil {
		return err
	}
	progress := freqProgress(e, plan.Members, &cfg)
	res, err := montecarlo.Run(intr.ctx, cfg)
	progress.clear()
	if err != nil && intr.caught() != 0 {
		return intr.failed(e, "freq", "running the trials, before any had ended", err)
	}
	interrupted := res != nil && res.Stopped == "interrupted" && intr.caught() != 0
	if interrupted {
		res.Stopped = intr.mark() // "terminated" after SIGTERM
	}
	if err != nil {
		return f.trialsFailed(e, prog, plan.Strata, err)
	}
	plan.Settle(res, cfg, pop, interrupted)
	prog.NameItems(res.Failures, maxNamed) // a task's too: the coordinator reports them
	return f.finish(e, intr, args, prog, counters, cfg.Rule, plan, res, interrupted)
}

// freqGC sets the collector for a run of trials. The trials' counts are folded
// as fast as the fork server runs them, and most of what is allocated stays live
// (the statistics, the decoded metadata), so the collector runs at twice the
// default heap growth (GOGC=200) unless $GOGC says otherwise: 200 trials of a
// SQLite workload took 10–15 % less time for 35 MB more (155 against 190 MB
// resident; a diagnosis).
func freqGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}

// plan checks the flags and returns the plan of the run they ask for, with the
// model, its strata prepared (montecarlo.PrepareStrata), and the isolation of the
// trials. With --from it judges the profiles instead (freqFrom).
func (f *freqFlags) plan(e *env, c *cobra.Command, args []string) (montecarlo.Plan, montecarlo.Isolation, error) {
	shard, shards, iso, err := f.checkArgs(c, args)
	if err != nil {
		return montecarlo.Plan{}, 0, err
	}
	if limit := maxJobsPerCPU * runtime.NumCPU(); f.jobs > limit {
		fmt.Fprintf(e.stderr, "fragprof freq: note: --jobs %d is more than %d per CPU: running %d jobs (%d CPUs here); each job is a process of its own, and more only wait for the CPUs\n",
			f.jobs, maxJobsPerCPU, limit, runtime.NumCPU())
		f.jobs = limit
	}
	first, share, err := f.cl.task(c, shard, shards, f.profFile)
	if err != nil {
		return montecarlo.Plan{}, 0, err
	}
	rule, err := f.stoppingRule(c)
	if err != nil {
		return montecarlo.Plan{}, 0, err
	}
	if f.from {
		return montecarlo.Plan{}, 0, freqFrom(e, args, rule, f.profFile, freqWriter(e, f.format, f.outFile))
	}
	if f.model, err = f.in.model(c); err != nil {
		return montecarlo.Plan{}, 0, err
	}
	m := f.model.Model
	strata := m.Strata()
	if strata != nil {
		if err := f.checkStrata(c, strata, m, shards); err != nil {
			return montecarlo.Plan{}, 0, err
		}
	}
	return montecarlo.Plan{Rule: rule, MaxTrials: f.maxTrials, MaxTime: f.maxTime, Jobs: f.jobs, MaxFailRate: f.maxFail,
		Only: f.only, Unit: f.unit, Shard: shard, Shards: shards, First: first, Share: share, Model: m, Strata: strata}, iso, nil
}

// program builds the program (with --func, its harness first) or checks
// --binary, and returns it ready to run trials in dir, with its number of
// counters.
func (f *freqFlags) program(e *env, intr *interrupts, args []string, iso montecarlo.Isolation, dir string) (*montecarlo.Program, int, error) {
	var h *harness.Harness
	if f.fn != "" {
		if err := harness.CheckInputs(f.binary, f.model, f.build.simplified); err != nil {
			return nil, 0, usagef("freq: %v", err)
		}
		var err error
		if h, err = functionHarness(intr.ctx, e, &f.build, args, f.fn, f.model, dir); err != nil {
			return nil, 0, intr.failed(e, "freq", "building the harness", err)
		}
	}
	bin, counters, err := buildOrBinary(intr.ctx, e, &f.build, args, f.binary, dir)
	if err != nil {
		return nil, 0, intr.failed(e, "freq", "building the program", err)
	}
	prog := &montecarlo.Program{
		Binary: bin, Inputs: f.model, Seed: f.in.seed, Isolation: iso, Timeout: f.trialTimeout,
		CountNonZero: !f.failNonZero, Dir: dir, Unit: f.unit,
	}
	if h != nil {
		prog.Encode = h.Encode
	}
	return prog, counters, nil
}

// members returns the size of the population --exhaustive runs through, each
// member once (dist.Model.Exhaustive); 0 without --exhaustive.
func (f *freqFlags) members(m *dist.Model) (uint64, error) {
	if !f.exhaustive {
		return 0, nil
	}
	p, err := m.Exhaustive()
	if err != nil {
		return 0, usagef("freq: --exhaustive: %v", err)
	}
	return uint64(p.Size), nil
}

// freqProgress returns the progress line of a run of cfg (of an exhaustive run's
// members when members > 0) and has cfg show it; nil when there is none to show.
func freqProgress(e *env, members uint64, cfg *montecarlo.Config) *progressLine {
	var p *progressLine
	if members > 0 {
		p = newMembersProgress(e.stderr, cfg.MaxTrials)
	} else {
		p = newProgressLine(e.stderr)
	}
	if p != nil {
		cfg.Progress = p.show
	}
	return p
}

// trialsFailed returns the error of a run whose trials ended in err: when every
// trial failed, the tally of their causes is printed first (a cluster's task
// writes its record instead: its share's failures are a result); when --only
// names no function, a usage error.
func (f *freqFlags) trialsFailed(e *env, prog *montecarlo.Program, strata *dist.Strata, err error) error {
	if nt := (*montecarlo.NoTrialsError)(nil); errors.As(err, &nt) {
		printCauses(e, nt.Causes, replayCommand(f.in.seed, strata))
		prog.NameItems(nt.Failures, maxNamed)
		if f.cl.record != "" {
			// A task's share that failed whole is a result: the coordinator judges
			// the run's failures (--max-fail) and names their causes.
			return f.cl.writeRecord(&montecarlo.Result{Failures: nt.Failures, Causes: nt.Causes, Stopped: "every trial failed"})
		}
		return fmt.Errorf("freq: every one of the %d trials run failed: no counts to estimate from (the tally above names the causes; replay one to see it)", len(nt.Failures))
	}
	if oe := (*montecarlo.OnlyError)(nil); errors.As(err, &oe) {
		return usagef("freq: --only: %v", oe)
	}
	return err
}

// finish writes what a run of plan's trials gave, judged by rule: the profile
// (--profile), then a cluster task's record or the report (and --report's page).
// It returns the run's end: an error when it stopped on failed trials or when
// members of an exhaustive run failed, the signal's exit status when
// interrupted.
func (f *freqFlags) finish(e *env, intr *interrupts, args []string, prog *montecarlo.Program, counters int, rule stopping.Rule, plan montecarlo.Plan, res *montecarlo.Result, interrupted bool) error {
	if f.profFile != "" {
		p, err := res.Profile(counters)
		if err != nil {
			return fmt.Errorf("freq: --profile: %v", err)
		}
		p.Identity = programIdentity(prog.Binary, args)
		p.Identity.Inputs = strings.Join(populationLines(plan.Model, f.in.seed), "\n")
		if err := p.WriteFile(f.profFile); err != nil {
			return fmt.Errorf("freq: writing the profile: %w", err)
		}
	}
	if f.cl.record != "" {
		return f.cl.writeRecord(res)
	}
	// With units the rule's guarantee at every n holds for each of stopping.Units's
	// two judgements, not proven for their union: not claimed.
	replay := replayCommand(f.in.seed, plan.Strata)
	fr := &report.Freq{Result: res, Rule: rule.Thresholds(), RuleName: rule.Name(), Anytime: stopping.AnytimeValid(rule.Name()) && plan.Unit <= 1,
		Seed: f.in.seed, Counters: counters, Inputs: inputLines(f.model, f.in.seed), Replay: replay,
		Strata: strataReport(plan.Strata, res, plan.Shards)}
	if err := freqWriter(e, f.format, f.outFile)(fr); err != nil {
		return err
	}
	if err := writeFreqHTML(e, f.htmlFile, fr); err != nil {
		return err
	}
	warnExits(e, res)
	if res.FailedOut {
		printCauses(e, res.Causes, replay)
		return fmt.Errorf("freq: stopped early: %s; the estimates above are from the %d trials that succeeded", res.Stopped, res.Trials)
	}
	if code := intr.code(); interrupted {
		return exitError{code} // the partial result is out; say it was interrupted
	}
	if plan.Members > 0 && len(res.Failures) > 0 {
		printMembers(e, res.Failures, replay)
		return fmt.Errorf("freq: --exhaustive: %d of the %d members run failed (named above): the estimates%s are of the other %d, not exact",
			len(res.Failures), uint64(len(res.Failures))+res.Trials, map[bool]string{true: " and the profile", false: ""}[f.profFile != ""], res.Trials)
	}
	return nil
}

// printMembers names the population members whose trials failed, each with the
// command that replays it (at most maxNamed; the report lists them all).
func printMembers(e *env, fails []montecarlo.Failure, replay func(uint64) string) {
	for k, fl := range fails {
		if k == maxNamed {
			fmt.Fprintf(e.stderr, "fragprof freq: ... and %d more failed members (the report lists them)\n", len(fails)-k)
			break
		}
		fmt.Fprintf(e.stderr, "fragprof freq: member failed, trial %d: %s; replay: %s\n", fl.Trial, fl.Reason, replay(fl.Trial))
	}
}

// maxNamed bounds the failed trials whose population items are named (nameItems)
// and listed (printMembers).
const maxNamed = 100

// maxJobsPerCPU bounds freq's --jobs: a trial that waits for input or output can
// let a CPU run another, but thousands of fork servers only cost their start (about
// 60 a second) and their memory.
const maxJobsPerCPU = 8

// printCauses prints the tally of failed trials by cause, with a command that
// replays the first trial of each.
func printCauses(e *env, causes []montecarlo.Cause, replay func(uint64) string) {
	if len(causes) == 0 {
		return
	}
	fmt.Fprintf(e.stderr, "fragprof freq: failed trials by cause:\n")
	for _, c := range causes {
		fmt.Fprintf(e.stderr, "  %-28s %6d trials   replay: %s\n", c.Cause, c.Trials, replay(c.First))
	}
}

// warnExits warns when trials whose counts were used exited with a non-zero status.
func warnExits(e *env, res *montecarlo.Result) {
	var codes []int
	var nonzero uint64
	for code, n := range res.Exits {
		if code != 0 {
			codes = append(codes, code)
			nonzero += n
		}
	}
	if nonzero == 0 {
		return
	}
	sort.Ints(codes)
	var parts []string
	for _, code := range codes {
		parts = append(parts, fmt.Sprintf("status %d ×%d", code, res.Exits[code]))
	}
	fmt.Fprintf(e.stderr, "fragprof freq: warning: %d of the %d trials used exited non-zero (%s); their counts are in the estimates (--fail-nonzero leaves them out)\n",
		nonzero, res.Trials, strings.Join(parts, ", "))
}

// freqWriter returns the writer of freq's report in format (text, json or dot) to
// outFile ("" for stderr).
func freqWriter(e *env, format, outFile string) func(*report.Freq) error {
	return func(fr *report.Freq) error {
		return writeReport(e, outFile, func(w io.Writer) error {
			switch format {
			case "json":
				return report.WriteFreqJSON(w, fr)
			case "dot":
				return report.WriteFreqDOT(w, fr)
			}
			return report.WriteFreqText(w, fr, sourceFiles)
		})
	}
}

// parseShard parses "I/K" with 0 ≤ I < K.
func parseShard(s string) (uint64, uint64, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	k, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
	if !ok || err1 != nil || err2 != nil || k == 0 || i >= k {
		return 0, 0, fmt.Errorf("%q: want I/K with 0 ≤ I < K, e.g. 0/4", s)
	}
	return i, k, nil
}

// freqFrom implements --from: it reads and merges the profiles, judges the merged
// distributions by rule and writes the report (and the merged profile to profFile,
// if given).
func freqFrom(e *env, files []string, rule stopping.Rule, profFile string, write func(*report.Freq) error) error {
	srcs := make([]*profile.Profile, len(files))
	for i, name := range files {
		p, err := readProfile(e, name)
		if err != nil {
			return err
		}
		if !p.HasStats() {
			return fmt.Errorf("freq: --from: %s has no statistics section: it was not written by 'fragprof freq --profile' (or was merged with a profile without statistics)", name)
		}
		srcs[i] = p
	}
	p := srcs[0]
	if len(srcs) > 1 {
		var err error
		var me *profile.MismatchError
		var pm *profile.ProgramMismatchError
		if p, err = profile.Merge(srcs); errors.As(err, &me) {
			return fmt.Errorf("freq: --from: function %s (%s) differs between %s and %s: the profiles are not of the same program",
				me.Func, me.File, files[me.A], files[me.B])
		} else if errors.As(err, &pm) {
			return fmt.Errorf("freq: --from: %s and %s are profiles of different programs: %s is of %s, %s of %s; they share no function",
				files[pm.A], files[pm.B], files[pm.A], pm.DescA, files[pm.B], pm.DescB)
		} else if err != nil {
			return fmt.Errorf("freq: --from: %v", err)
		}
	}
	if strings.Contains(p.Identity.Inputs, "neyman allocation") {
		return fmt.Errorf("freq: --from: the profiles are of a stratified population drawn by Neyman's allocation: their summed counts weigh the strata by the trials each got, not by their sizes, so their means are not the population's; read the run's own report")
	}
	if in := strataInput(p.Identity.Inputs); in != "" && p.Strata == nil {
		fmt.Fprintf(e.stderr, "fragprof freq: note: %s\n", strataByDefaultRule(in, "--from"))
	}
	if n := storedPopulation(p); n > 0 {
		// The trials are a sample without replacement of the population (shards of
		// one seed draw disjoint members): the rule takes its size, and all N
		// members are the exact answer.
		if uint64(p.Runs) > n {
			return fmt.Errorf("freq: --from: the profiles hold %d trials of a population of %d members: some were run twice (a shard merged twice, or shards of different seeds)", p.Runs, n)
		}
		th := rule.Thresholds()
		th.Population = n
		var err error
		if rule, err = stopping.New(rule.Name(), th); err != nil {
			return fmt.Errorf("freq: --from: %v", err)
		}
	}
	res, err := judgeProfile(p, rule)
	if err != nil {
		return fmt.Errorf("freq: --from: %v", err)
	}
	undecided := 0
	for fi := range res.Blocks {
		for _, be := range res.Blocks[fi] {
			if be.Decision.State == stats.Unconverged {
				undecided++
			}
		}
	}
	verdict := "every block decided"
	if n := rule.Thresholds().Population; n > 0 && res.Trials == n {
		verdict = fmt.Sprintf("every one of the population's %d members, the estimates are exact", n)
	}
	if undecided > 0 {
		verdict = fmt.Sprintf("%d blocks undecided", undecided)
	}
	res.Stopped = fmt.Sprintf("judged from %d stored profile(s) holding %d trials: %s (the convergence series, the trial at which each block converged and the failed trials are not stored in profiles)",
		len(files), res.Trials, verdict)
	if profFile != "" {
		if err := p.WriteFile(profFile); err != nil {
			return fmt.Errorf("freq: writing the profile: %w", err)
		}
	}
	return write(&report.Freq{Result: res, Rule: rule.Thresholds(), RuleName: rule.Name(), Anytime: stopping.AnytimeValid(rule.Name()), Counters: p.Counters,
		Strata: storedStrata(p, res)})
}

// functionHarness plans the driver of --func: it compiles the sources to IR, binds
// the inputs to the function's parameters and the program's globals, and adds the
// driver and the edit that sets the unit's main aside to the build.
func functionHarness(ctx context.Context, e *env, bf *buildFlags, srcs []string, fn string, model *dist.File, dir string) (*harness.Harness, error) {
	spec, err := bf.spec(srcs)
	if err != nil {
		return nil, err
	}
	tc, err := toolchain()
	if err != nil {
		return nil, err
	}
	var missing error
	for i, src := range srcs {
		ll := filepath.Join(dir, fmt.Sprintf("func-%d.ll", i))
		if err := tc.EmitIR(ctx, e.stderr, src, ll, spec.CFlags); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		m, err := tc.ReadIR(ll, spec.CFlags)
		if err != nil {
			return nil, build.IRError(src, err)
		}
		h, err := harness.New(m, fn, model.Model)
		if err != nil {
			missing = err
			if strings.Contains(err.Error(), "no such function") {
				continue
			}
			return nil, err
		}
		for _, w := range h.Warnings {
			fmt.Fprintf(e.stderr, "fragprof: warning: %s\n", w)
		}
		drv := filepath.Join(dir, "harness.ll")
		if err := os.WriteFile(drv, []byte(h.IR()), 0o644); err != nil {
			return nil, err
		}
		bf.edits = append(bf.edits, h.Edit())
		bf.exported = append(bf.exported, fn) // the harness calls it from outside the unit
		bf.extra = append(bf.extra, drv)
		return h, nil
	}
	return nil, missing
}

// buildOrBinary builds the sources into dir, or checks --binary, and returns the
// program and its number of counters.
func buildOrBinary(ctx context.Context, e *env, bf *buildFlags, srcs []string, binary, dir string) (string, int, error) {
	if binary != "" {
		abs, err := filepath.Abs(binary)
		if err != nil {
			return "", 0, err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", 0, usagef("--binary: %v", err)
		}
		return abs, 0, nil
	}
	spec, err := bf.spec(srcs)
	if err != nil {
		return "", 0, err
	}
	tc, err := toolchain()
	if err != nil {
		return "", 0, err
	}
	bin := filepath.Join(dir, "prog")
	units, err := tc.Build(ctx, e.stderr, spec, dir, bin)
	if err != nil {
		return "", 0, err
	}
	n := 0
	for _, u := range units {
		n += u.NumCounters()
	}
	return bin, n, nil
}

// inputLines describes the inputs for a report: one "NAME = DIST" line each, then
// one line per finite population with its size and digest, so that a corpus that
// changed between two runs shows in their reports.
func inputLines(f *dist.File, seed uint64) []string {
	var out []string
	for _, in := range f.Model.Inputs {
		out = append(out, in.Name+" = "+in.Dist)
	}
	return append(out, populationLines(f.Model, seed)...)
}

// populationLines names the model's finite populations, one line each with the
// population's size and digest; a profile keeps them (profile.Identity.Inputs).
func populationLines(m *dist.Model, seed uint64) []string {
	var out []string
	for _, p := range m.Populations() {
		how := "drawn without replacement"
		if p.Weighted {
			how = "drawn with replacement, weighted"
		}
		if st := m.Strata(); st != nil && st.Input == p.Input {
			how += fmt.Sprintf(", stratified by %s (%d strata), %s allocation", st.Key, len(st.Sizes), st.Alloc)
		}
		out = append(out, fmt.Sprintf("%s: population of %d items of %q, %s, sha256 %s", p.Input, p.Size, p.Source, how, p.Digest))
	}
	if n := m.FinitePopulation(); n > 0 {
		out = append(out, fmt.Sprintf(finiteLine, n, seed))
	}
	return out
}

// finiteLine is the line of populationLines that says that each trial draws one
// member of a population of N without replacement, in the order of the seed's
// shuffle, and nothing else at random: a profile's trials then are a sample of
// the N members, and N of them all of them (freq --from reads it back:
// storedPopulation). With the seed in it, profiles of different seeds, whose
// members overlap, do not merge.
const finiteLine = "finite population: N = %d, drawn without replacement by seed %d, nothing else random"

// storedPopulation returns the N of a profile's finite population (finiteLine
// in its Identity.Inputs), 0 when it has none.
func storedPopulation(p *profile.Profile) uint64 {
	for _, l := range strings.Split(p.Identity.Inputs, "\n") {
		var n, seed uint64
		if _, err := fmt.Sscanf(l, finiteLine, &n, &seed); err == nil && fmt.Sprintf(finiteLine, n, seed) == l {
			return n
		}
	}
	return 0
}

// replayCommand returns the command that replays a trial of a run of seed: its
// trial's identity is the number, or, after the pilot of Neyman's allocation,
// the number with the stratum and draw (dist.Schedule.TrialID).
func replayCommand(seed uint64, st *dist.Strata) func(uint64) string {
	return func(i uint64) string {
		id := strconv.FormatUint(i, 10)
		if st != nil {
			id = st.Schedule.TrialID(i)
		}
		return fmt.Sprintf("fragprof freq ... --seed %d --replay %s", seed, id)
	}
}

// pinReplay reads --replay N or N:H:K and returns the trial N, pinning it to
// stratum H and draw K (dist.Schedule.Pin): the trial of a Neyman round past the
// pilot, whose stratum the seed alone does not give.
func pinReplay(s string, st *dist.Strata) (uint64, error) {
	parts := strings.Split(s, ":")
	var xs []uint64
	for _, p := range parts {
		x, err := strconv.ParseUint(p, 10, 64)
		if err != nil || len(parts) != 1 && len(parts) != 3 {
			return 0, usagef("freq: --replay %q: want the trial's number N, or N:H:K (a trial of alloc = neyman after the pilot, with its stratum H and draw K, as the run printed it)", s)
		}
		xs = append(xs, x)
	}
	i := xs[0]
	switch {
	case len(xs) == 3 && st == nil:
		return 0, usagef("freq: --replay %s: the inputs have no strata; give the trial's number alone", s)
	case len(xs) == 3:
		if err := st.Schedule.Pin(i, int(xs[1]), xs[2]); err != nil {
			return 0, usagef("freq: --replay %s: input %s: %v", s, st.Input, err)
		}
	case st != nil && st.Alloc == dist.Neyman:
		if _, _, err := st.Schedule.Stratum(i); err != nil {
			return 0, usagef("freq: --replay %d: input %s has alloc = neyman, and trial %d is past the pilot: its stratum was planned from the trials before it; give --replay %d:H:K with its stratum H and draw K, as the run that ran it printed them", i, st.Input, i, i)
		}
	}
	return i, nil
}

// replayTrial runs trial i once with its inputs, the program's output passed through,
// and prints the inputs and the exact counts of that run.
func replayTrial(e *env, intr *interrupts, p *montecarlo.Program, i uint64, strata *dist.Strata) error {
	in, err := p.TrialInputs(i)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof freq: trial %d (seed %d)\n", i, p.Seed)
	if strata != nil {
		h, k, _ := strata.Schedule.Stratum(i)
		fmt.Fprintf(e.stderr, "stratum %d (%s of input %s), draw %d\n", h, strata.Names[h], strata.Input, k)
	}
	if in.Values != "" {
		fmt.Fprintf(e.stderr, "inputs: %s\n", in.Values)
	}
	fmt.Fprintf(e.stderr, "args: %q\nstdin: %q\n", in.Args, in.Stdin)
	wd := filepath.Join(p.Dir, "replay")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return err
	}
	for name, data := range in.Files {
		fmt.Fprintf(e.stderr, "file %s: %q\n", name, data)
		if err := os.WriteFile(filepath.Join(wd, name), data, 0o644); err != nil {
			return err
		}
	}
	ctx := bg()
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	d, st, err := runner.Run(ctx, runner.Command{Path: p.Binary, Args: in.Args, Stdin: bytes.NewReader(in.Stdin),
		Stdout: e.stdout, Stderr: e.stderr, WorkDir: wd, Interrupt: intr.ctx})
	intr.settle(st.Signal)
	if code := intr.code(); code != 0 {
		fmt.Fprintf(e.stderr, "fragprof freq: trial %d %s (%s): it ended with %s\n", i, intr.mark(), unix.SignalName(intr.caught()), st)
		return exitError{code}
	}
	if ctx.Err() == context.DeadlineExceeded {
		fmt.Fprintf(e.stderr, "fragprof freq: trial %d timed out after %v (--trial-timeout) and was killed\n", i, p.Timeout)
		return exitError{124}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof freq: trial %d ended with %s\n", i, st)
	prof, err := d.Profile()
	if err != nil {
		return err
	}
	if err := report.WriteText(e.stderr, prof, sourceFiles); err != nil {
		return err
	}
	if code := st.ShellCode(); code != 0 {
		return exitError{code}
	}
	return nil
}

// progressLine prints a self-overwriting progress line on a terminal.
type progressLine struct {
	w     io.Writer
	shown bool
	total uint64 // an exhaustive run's members (0: a sampling run)
	// every, when positive, prints a line (not overwritten) at most this often,
	// for a log rather than a terminal; last is when the last was printed.
	every time.Duration
	last  time.Time
}

// newProgressLine returns nil when w is not a terminal: progress is only for people.
func newProgressLine(w io.Writer) *progressLine {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressLine{w: w}
}

// newMembersProgress returns the progress of an exhaustive run of total
// members: a self-overwriting line on a terminal, otherwise (a log) one line
// every 30 s.
func newMembersProgress(w io.Writer, total uint64) *progressLine {
	p := newProgressLine(w)
	if p == nil {
		p = &progressLine{w: w, every: 30 * time.Second, last: time.Now()}
	}
	p.total = total
	return p
}

func (p *progressLine) show(pr montecarlo.Progress) {
	text := progressText(pr)
	if p.total > 0 {
		text = membersText(pr, p.total)
	}
	if p.every > 0 {
		if time.Since(p.last) >= p.every {
			p.last = time.Now()
			fmt.Fprintln(p.w, text)
		}
		return
	}
	fmt.Fprintf(p.w, "\r%-110s", text)
	p.shown = true
}

// membersText is the progress line of an exhaustive run: members run (failed
// ones included) of total, their rate, and the time left at that rate.
func membersText(pr montecarlo.Progress, total uint64) string {
	done := pr.Trials + pr.Failed
	rate := float64(done) / max(pr.Elapsed.Seconds(), 1e-9)
	line := fmt.Sprintf("fragprof freq: %d/%d members run (%.1f %%), %.0f/s", done, total, 100*float64(done)/float64(total), rate)
	if pr.Failed > 0 {
		line += fmt.Sprintf(", %d failed", pr.Failed)
	}
	if done > 0 && done < total {
		line += fmt.Sprintf(", ~%v left", (time.Duration(float64(total-done) / rate * float64(time.Second))).Round(time.Second))
	}
	return line
}

// progressText is the progress line: trials done and their rate, blocks decided,
// and the block that now decides the budget with the trials it projects and the
// time they take at the rate so far.
func progressText(pr montecarlo.Progress) string {
	rate := float64(pr.Trials) / max(pr.Elapsed.Seconds(), 1e-9)
	line := fmt.Sprintf("fragprof freq: %d trials, %.0f/s, %d/%d blocks decided", pr.Trials, rate, pr.Decided, pr.Blocks)
	if pr.Deciding != "" {
		line += fmt.Sprintf("; deciding: %s ±%.3g, needs ~%.0f trials", pr.Deciding, pr.HalfWidth, pr.Need)
		if pr.Left > 0 {
			line += fmt.Sprintf(" (~%v left)", pr.Left.Round(time.Second))
		}
	}
	return line
}

func (p *progressLine) clear() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\r%-100s\r", "")
	}
}

// checkStrata prepares the schedule of a stratified population for the run and
// sets the unit of its trials (montecarlo.PrepareStrata), naming the flag that
// spreads the run over machines, which Neyman's allocation refuses.
func (f *freqFlags) checkStrata(c *cobra.Command, st *dist.Strata, m *dist.Model, shards uint64) error {
	spread := ""
	switch {
	case f.cl.engine != "local":
		spread = "--engine " + f.cl.engine
	case f.cl.trials != "":
		spread = "--trial-range"
	case shards > 1:
		spread = "--shard"
	}
	unit, err := montecarlo.PrepareStrata(st, m, f.unit, f.design, c.Flags().Changed("design"), spread)
	if err != nil {
		return usagef("freq: %v", err)
	}
	f.unit = unit
	return nil
}

// strataByDefaultRule says that input's strata are not judged by the stratified
// rule where what (freq --from) judges profiles that hold each block's counts
// over all trials but not per stratum (no strata section: a run judged by Latin
// hypercube units, profiles of an older fragprof, or merged with such).
func strataByDefaultRule(input, what string) string {
	return fmt.Sprintf("input %s is stratified, and %s reads profiles without counts per stratum (of a run judged by Latin hypercube units, written by an older fragprof, or merged with such): the blocks are judged by the stopping rule on all the trials as one sample, not by the stratified mean (the trials drew the strata in proportion to their sizes, as on one machine)", input, what)
}

// judgeProfile judges every block of a profile written by freq --profile (or a
// merge of such) by rule on all its trials; a stratified run's profile, with its
// counts per stratum (profile.Stratum), by the stratified mean
// ([stopping.Stratified]) as the run itself judged them, each stratum a finite
// population unless the profile's inputs draw anything else at random
// (storedPopulation).
func judgeProfile(p *profile.Profile, rule stopping.Rule) (*montecarlo.Result, error) {
	if p.Strata == nil {
		return montecarlo.FromProfile(p, rule)
	}
	sr, err := stopping.NewStratified(rule.Thresholds())
	if err != nil {
		return nil, err
	}
	sr.Infinite = storedPopulation(p) == 0
	return montecarlo.FromStratifiedProfile(p, rule, sr)
}

// strataInput returns the input of a stratified population named in a
// profile's inputs (populationLines), "" when there is none.
func strataInput(inputs string) string {
	for _, l := range strings.Split(inputs, "\n") {
		if name, rest, ok := strings.Cut(l, ": population of "); ok && strings.Contains(rest, ", stratified by ") {
			return name
		}
	}
	return ""
}

// storedStrata describes the strata of a judged profile (judgeProfile) with the
// trials each holds, as strataReport describes a run's: the input, key and
// allocation from the profile's inputs (populationLines); nil without strata.
func storedStrata(p *profile.Profile, res *montecarlo.Result) *report.FreqStrata {
	if p.Strata == nil || res.StrataTrials == nil {
		return nil
	}
	out := &report.FreqStrata{Input: strataInput(p.Identity.Inputs)}
	for _, l := range strings.Split(p.Identity.Inputs, "\n") {
		if _, rest, ok := strings.Cut(l, ", stratified by "); ok && strings.HasPrefix(l, out.Input+": ") {
			key, rest, _ := strings.Cut(rest, " (")
			_, rest, _ = strings.Cut(rest, "), ")
			alloc, _, _ := strings.Cut(rest, " allocation")
			out.Key, out.Alloc = key, alloc
		}
	}
	for h, st := range p.Strata {
		out.Strata = append(out.Strata, report.JSONStratum{Name: st.Name, Size: st.Size, Trials: res.StrataTrials[h]})
	}
	return out
}

// strataReport describes the run's strata with the trials each gave: those the
// engine counted, or, when units judged the run, those the schedule assigned.
func strataReport(st *dist.Strata, res *montecarlo.Result, shards uint64) *report.FreqStrata {
	if st == nil {
		return nil
	}
	trials := res.StrataTrials
	if trials == nil && shards <= 1 {
		trials = st.Schedule.Counts(res.Trials + uint64(len(res.Failures)))
	}
	out := &report.FreqStrata{Input: st.Input, Key: st.Key, Alloc: st.Alloc.String()}
	for h, name := range st.Names {
		js := report.JSONStratum{Name: name, Size: st.Sizes[h]}
		if trials != nil {
			js.Trials = trials[h]
		}
		out.Strata = append(out.Strata, js)
	}
	return out
}
