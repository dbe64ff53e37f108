// This file wires `fragprof freq --engine slurm`, `--status`, `--resume` and the
// task side (`--trial-range`, `--task-record`) to package cluster.

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fragprof/fragprof/internal/cluster"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/stopping"
	"github.com/fragprof/fragprof/profile"
)

// clusterFlags are freq's flags for runs on a batch system and for their tasks.
type clusterFlags struct {
	engine, workdir, partition, timeLimit, exe string
	sbatch                                     []string
	shards, attempts, maxRunning               int
	status, resume                             string
	leaveRunning                               bool
	// The task side: --trial-range FROM:TO and --task-record FILE.
	trials, record              string
	from, to, shard, shardCount uint64
}

func (f *clusterFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.engine, "engine", "local", "where trials run: local (this machine) or slurm (array jobs on a Slurm cluster, in adaptive rounds; docs/scale.md)")
	fs.IntVar(&f.shards, "shards", 16, "with --engine slurm: the tasks of each round (the array size)")
	fs.StringVar(&f.workdir, "workdir", "", "with --engine slurm: the run `DIR`ectory, on a file system the nodes share; it is the run's journal (--status, --resume)")
	fs.StringVar(&f.partition, "partition", "", "with --engine slurm: the Slurm partition (default: the cluster's)")
	fs.StringVar(&f.timeLimit, "time", "", "with --engine slurm: each task's time limit, as sbatch --time (e.g. 00:20:00)")
	fs.StringArrayVar(&f.sbatch, "sbatch", nil, "with --engine slurm: a further sbatch `OPTION` for every task, e.g. --sbatch=--mem=2G; repeatable")
	fs.IntVar(&f.attempts, "max-attempts", 3, "with --engine slurm: submissions of one task (a failed, timed-out or preempted task is resubmitted with the same trials)")
	fs.StringVar(&f.exe, "fragprof", "", "with --engine slurm: the fragprof `EXECUTABLE` the tasks run (default: this one; it is copied into the run directory)")
	fs.IntVar(&f.maxRunning, "max-running", 0, "with --engine slurm: at most `N` tasks of a round run at once (sbatch --array=LIST%N); 0: as many as the cluster gives")
	fs.BoolVar(&f.leaveRunning, "leave-running", false, "with --engine slurm or --resume: when fragprof stops (Ctrl-C, an error), leave the run's tasks queued or running, for a later --resume; by default they are cancelled (scancel)")
	fs.StringVar(&f.status, "status", "", "print the state of the cluster run in `DIR`: rounds, tasks accepted, active and failed, the estimate so far (--json: as JSON)")
	fs.StringVar(&f.resume, "resume", "", "continue the cluster run in `DIR` after its coordinator stopped; --partition, --time, --sbatch, --max-attempts and --max-running given with it replace the run's, from this resume on")
	fs.StringVar(&f.trials, "trial-range", "", "run exactly trials `FROM:TO` (FROM ≤ t < TO; with --shard I/K those with t − FROM ≡ I mod K), never stopping early: a task of --engine slurm")
	fs.StringVar(&f.record, "task-record", "", "with --trial-range: write the task's record to `FILE` once every trial of its share ran (the coordinator merges only such tasks)")
}

// task checks the cluster flags of a freq run that trials will run, and returns the
// first trial number and the trials of the share, for --trial-range (0, 0 without).
func (f *clusterFlags) task(c *cobra.Command, shard, shards uint64, profFile string) (uint64, uint64, error) {
	if f.engine != "local" && f.engine != "slurm" {
		return 0, 0, usagef("freq: --engine %q: want local or slurm", f.engine)
	}
	if f.engine == "slurm" {
		for _, fl := range []string{"func", "shard", "max-time", "replay", "trial-range", "task-record", "from", "only"} {
			if c.Flags().Changed(fl) {
				return 0, 0, usagef("freq: --engine slurm: --%s does not apply", fl)
			}
		}
		if f.workdir == "" {
			return 0, 0, usagef("freq: --engine slurm needs --workdir DIR, on a file system the nodes share")
		}
		if f.shards < 1 {
			return 0, 0, usagef("freq: --shards %d: want at least 1", f.shards)
		}
		if f.maxRunning < 0 {
			return 0, 0, usagef("freq: --max-running %d: want 0 (no limit) or more", f.maxRunning)
		}
		return 0, 0, nil
	}
	for _, fl := range []string{"shards", "workdir", "partition", "time", "sbatch", "max-attempts", "fragprof", "max-running", "leave-running"} {
		if c.Flags().Changed(fl) {
			return 0, 0, usagef("freq: --%s needs --engine slurm", fl)
		}
	}
	if f.trials == "" {
		if f.record != "" {
			return 0, 0, usagef("freq: --task-record needs --trial-range")
		}
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(f.trials, ":")
	from, err1 := strconv.ParseUint(a, 10, 64)
	to, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || to <= from {
		return 0, 0, usagef("freq: --trial-range %q: want FROM:TO with FROM < TO, e.g. 0:9017", f.trials)
	}
	if profFile == "" || c.Flags().Changed("from") {
		return 0, 0, usagef("freq: --trial-range runs a task's share: it needs --profile (and not --from)")
	}
	for _, fl := range []string{"max-trials", "max-time"} {
		if c.Flags().Changed(fl) {
			return 0, 0, usagef("freq: --trial-range runs every trial of its share: --%s does not apply", fl)
		}
	}
	f.from, f.to, f.shard, f.shardCount = from, to, shard, max(shards, 1)
	n := cluster.ShareSize(from, to, shard, f.shardCount)
	if n == 0 {
		return 0, 0, usagef("freq: --trial-range %s --shard %d/%d holds no trial", f.trials, shard, f.shardCount)
	}
	return from, n, nil
}

// writeRecord ends a task: its record, once every trial of its share ran.
func (f *clusterFlags) writeRecord(res *montecarlo.Result) error {
	if err := cluster.WriteRecord(f.record, f.from, f.to, f.shard, f.shardCount, res); err != nil {
		return fmt.Errorf("freq: --trial-range %s: %v", f.trials, err)
	}
	return nil
}

// clusterRun is what a new cluster run takes from freq's other flags.
type clusterRun struct {
	bin       string
	counters  int
	in        *inputFlags
	rule      stopping.Rule
	maxTrials uint64
	maxFail   float64
	report    map[string]string
	// exhaustive runs every member of the population once (maxTrials = N).
	exhaustive bool
}

// onCluster hands the run of plan to the cluster (--engine slurm): its
// coordinator judges all the trials, by the rule and within the budget of
// montecarlo.Plan.Coordinator.
func (f *freqFlags) onCluster(e *env, c *cobra.Command, args []string, plan montecarlo.Plan, prog *montecarlo.Program, counters int) error {
	rule, maxTrials, err := plan.Coordinator()
	if err != nil {
		return err
	}
	return f.cl.run(e, c, clusterRun{bin: prog.Binary, counters: counters, in: &f.in, rule: rule, exhaustive: f.exhaustive,
		maxTrials: maxTrials, maxFail: f.maxFail, report: map[string]string{"format": f.format, "output": f.outFile,
			"profile": f.profFile, "report": f.htmlFile, "inputs": strings.Join(inputLines(f.model, f.in.seed), "\n"),
			"program": programIdentity(prog.Binary, args).Name}})
}

// run starts a new run in --workdir and coordinates it to its end.
func (f *clusterFlags) run(e *env, c *cobra.Command, r clusterRun) error {
	if _, err := osexec.LookPath("sbatch"); err != nil {
		return fmt.Errorf("freq: --engine slurm needs Slurm's commands (sbatch, squeue, scancel) on PATH, and SLURM_CONF when the cluster is not the default: %v", err)
	}
	// Task ids are below the cluster's MaxArraySize: sbatch refuses a larger array.
	eng := &cluster.Slurm{Partition: f.partition, Time: f.timeLimit, Extra: f.sbatch, MaxRunning: f.maxRunning}
	limit, err := eng.MaxArraySize(bg())
	if err != nil {
		return fmt.Errorf("freq: --engine slurm: asking the cluster for its MaxArraySize: %v", err)
	}
	if f.shards > limit {
		return usagef("freq: --shards %d: the cluster's arrays hold at most %d tasks (MaxArraySize in 'scontrol show config'): give --shards %d or fewer", f.shards, limit, limit)
	}
	dir, err := filepath.Abs(f.workdir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	exe := f.exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return err
		}
	}
	cpus := 1
	if c.Flags().Changed("jobs") {
		cpus, _ = c.Flags().GetInt("jobs")
	}
	args, err := f.taskArgs(c, r.in, dir, cpus)
	if err != nil {
		return err
	}
	r.report["seed"] = strconv.FormatUint(r.in.seed, 10)
	for _, k := range []string{"output", "profile", "report"} {
		if r.report[k] != "" {
			if r.report[k], err = filepath.Abs(r.report[k]); err != nil {
				return err
			}
		}
	}
	spec := cluster.Spec{Engine: "slurm", Slurm: eng,
		TaskArgs: args, Counters: r.counters, Rule: r.rule.Name(), Thresholds: r.rule.Thresholds(), MaxTrials: r.maxTrials, Tasks: f.shards,
		CPUs: cpus, Attempts: f.attempts, MaxFail: r.maxFail, Report: r.report, Exhaustive: r.exhaustive}
	if _, err := cluster.Create(dir, exe, r.bin, spec); err != nil {
		return fmt.Errorf("freq: %v", err)
	}
	return coordinate(e, dir, f.leaveRunning, nil)
}

// taskArgs returns the flags that give every task the run's inputs and trial
// settings, copying the input model file into dir.
func (f *clusterFlags) taskArgs(c *cobra.Command, in *inputFlags, dir string, cpus int) ([]string, error) {
	fs := c.Flags()
	var args []string
	if in.modelFile != "" {
		data, err := os.ReadFile(in.modelFile)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(cluster.InputsFile(dir), data, 0o644); err != nil {
			return nil, err
		}
		args = append(args, "--inputs", cluster.InputsFile(dir))
	}
	for _, v := range in.inputs {
		args = append(args, "--input", v)
	}
	if fs.Changed("stdin") {
		args = append(args, "--stdin", in.stdin)
	}
	for _, v := range in.args {
		args = append(args, "--arg", v)
	}
	for _, v := range in.files {
		args = append(args, "--file", v)
	}
	// A task runs its whole share whatever fails (--max-fail 1): the coordinator
	// applies the run's --max-fail to the failures of all the trials.
	args = append(args, "--seed", strconv.FormatUint(in.seed, 10), "--jobs", strconv.Itoa(cpus), "--max-fail", "1")
	for _, name := range []string{"isolation", "trial-timeout", "fail-nonzero"} {
		if fl := fs.Lookup(name); fl != nil && fl.Changed {
			args = append(args, "--"+name+"="+fl.Value.String())
		}
	}
	return args, nil
}

// statusOrResume implements --status DIR and --resume DIR.
func (f *clusterFlags) statusOrResume(e *env, c *cobra.Command) error {
	if f.status != "" && f.resume != "" {
		return usagef("freq: give --status or --resume, not both")
	}
	dir := f.status + f.resume
	var other []string
	c.Flags().Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "status", "resume":
		case "partition", "time", "sbatch", "max-attempts", "max-running", "leave-running":
			if f.status != "" {
				other = append(other, "--"+fl.Name)
			}
		case "json":
			if f.resume != "" {
				other = append(other, "--"+fl.Name)
			}
		default:
			other = append(other, "--"+fl.Name)
		}
	})
	if len(other) > 0 || len(c.Flags().Args()) > 0 {
		return usagef("freq: --status and --resume take the run's settings from its journal: %s do(es) not apply (--status takes --json; --resume may change --partition, --time, --sbatch, --max-attempts, --max-running, and takes --leave-running)",
			strings.Join(append(other, c.Flags().Args()...), " "))
	}
	j, err := cluster.ReadJournal(dir)
	if err != nil {
		return fmt.Errorf("freq: %v", err)
	}
	var eng cluster.Engine
	if j.Spec.Slurm != nil {
		eng = j.Spec.Slurm
	}
	if f.status != "" {
		if _, err := osexec.LookPath("squeue"); err != nil {
			eng = nil // the journal alone
		}
		judge, err := clusterJudge(j.Spec)
		if err != nil {
			return err
		}
		asJSON, _ := c.Flags().GetBool("json")
		w := e.stdout
		if e.report != nil { // --json: routeOutput moved the program's stdout away
			w = e.report
		}
		return cluster.Status(bg(), w, dir, eng, judge, asJSON)
	}
	if j.Stopped != "" {
		fmt.Fprintf(e.stderr, "fragprof freq: the run in %s has finished (%s); its report again:\n", dir, j.Stopped)
	}
	return coordinate(e, dir, f.leaveRunning, func(s *cluster.Spec) {
		// Settings given with --resume replace the run's for what is still to submit.
		fs := c.Flags()
		if fs.Changed("partition") {
			s.Slurm.Partition = f.partition
		}
		if fs.Changed("time") {
			s.Slurm.Time = f.timeLimit
		}
		if fs.Changed("sbatch") {
			s.Slurm.Extra = f.sbatch
		}
		if fs.Changed("max-attempts") {
			s.Attempts = max(f.attempts, 1)
		}
		if fs.Changed("max-running") {
			s.Slurm.MaxRunning = max(f.maxRunning, 0)
		}
	})
}

// coordinate drives the run in dir to its end and writes its report as the
// journal says; retune, when not nil, changes the run's settings first. The run's
// tasks still queued or running when it stops are cancelled, unless leave.
func coordinate(e *env, dir string, leave bool, retune func(*cluster.Spec)) error {
	j, err := cluster.ReadJournal(dir)
	if err != nil {
		return fmt.Errorf("freq: %v", err)
	}
	if j.Spec.Slurm == nil {
		return fmt.Errorf("freq: %s: engine %q is not known to this fragprof", dir, j.Spec.Engine)
	}
	judge, err := clusterJudge(j.Spec)
	if err != nil {
		return err
	}
	co, err := cluster.Open(dir, j.Spec.Slurm, judge, e.stderr)
	if err != nil {
		return fmt.Errorf("freq: %v", err)
	}
	defer co.Close()
	co.LeaveRunning = leave
	if retune != nil {
		if err := co.Retune(retune); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, err := co.Run(ctx)
	rep := co.J.Spec.Report
	replay := func(i uint64) string { return fmt.Sprintf("fragprof freq ... --seed %s --replay %d", rep["seed"], i) }
	switch fe := (*cluster.FailedError)(nil); {
	case errors.Is(err, cluster.ErrDetached):
		fmt.Fprintf(e.stderr, "fragprof freq: %v; 'fragprof freq --status %s' shows them, 'fragprof freq --resume %s' continues the run\n", err, dir, dir)
		return exitError{130}
	case errors.Is(err, cluster.ErrInterrupted):
		fmt.Fprintf(e.stderr, "fragprof freq: %v; 'fragprof freq --resume %s' continues the run (--leave-running keeps the tasks running when fragprof stops)\n", err, dir)
		return exitError{130}
	case errors.As(err, &fe):
		printCauses(e, fe.Causes, replay)
		return fmt.Errorf("freq: %v (the tally above names the causes: replay a trial to see it; the run is kept in %s)", fe, dir)
	case err != nil:
		return fmt.Errorf("freq: %v (the run is kept in %s: fix the cause, then 'fragprof freq --resume %s')", err, dir, dir)
	}
	if rep["program"] != "" {
		// The files the user named, as a local run names them: the tasks ran the
		// copy of the binary in the run directory.
		out.Profile.Identity.Name = rep["program"]
	}
	if rep["profile"] != "" {
		if err := out.Profile.WriteFile(rep["profile"]); err != nil {
			return fmt.Errorf("freq: writing the profile: %w", err)
		}
	}
	seed, _ := strconv.ParseUint(rep["seed"], 10, 64)
	f := &report.Freq{Result: out.Result, Rule: co.J.Spec.Thresholds, RuleName: co.J.Spec.Rule,
		Anytime: stopping.AnytimeValid(co.J.Spec.Rule), Seed: seed, Counters: co.J.Spec.Counters, Strata: storedStrata(out.Profile, out.Result)}
	f.Replay = replay
	if rep["inputs"] != "" {
		f.Inputs = strings.Split(rep["inputs"], "\n")
	}
	if err := freqWriter(e, rep["format"], rep["output"])(f); err != nil {
		return err
	}
	if err := writeFreqHTML(e, rep["report"], f); err != nil {
		return err
	}
	if out.Result.FailedOut {
		printCauses(e, out.Result.Causes, replay)
		return fmt.Errorf("freq: stopped early: %s; the estimates above are from the %d trials that succeeded", out.Result.Stopped, out.Result.Trials)
	}
	if fails := out.Result.Failures; co.J.Spec.Exhaustive && len(fails) > 0 {
		// The tasks named the members their failed trials drew.
		printMembers(e, fails, replay)
		return fmt.Errorf("freq: --exhaustive: %d of the %d members run failed (named above): the estimates and the profile are of the other %d, not exact",
			len(fails), uint64(len(fails))+out.Result.Trials, out.Result.Trials)
	}
	return nil
}

// clusterJudge makes the stopping rule a run's journal names.
func clusterJudge(spec cluster.Spec) (cluster.Judge, error) {
	rule, err := stopping.New(spec.Rule, spec.Thresholds)
	if err != nil {
		return cluster.Judge{}, fmt.Errorf("freq: the run's stopping rule: %v", err)
	}
	return cluster.Judge{
		Profile:   func(p *profile.Profile) (*montecarlo.Result, error) { return judgeProfile(p, rule) },
		MinTrials: rule.MinTrials(),
	}, nil
}
