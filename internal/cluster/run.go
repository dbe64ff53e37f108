// This file is the coordinator: rounds planned, submitted, watched, repaired,
// merged and judged, with the journal written at every step.

package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/profile"
)

// ErrDetached is returned when the coordinator was interrupted with LeaveRunning:
// the run's tasks go on in the batch system, and a resumed coordinator continues
// the run.
var ErrDetached = errors.New("the coordinator was interrupted; the tasks submitted go on running")

// ErrInterrupted is returned when the coordinator was interrupted: it cancelled the
// run's tasks still queued or running, and a resumed coordinator submits them again.
var ErrInterrupted = errors.New("the coordinator was interrupted and cancelled the run's tasks still queued or running")

// A Coordinator drives one run.
type Coordinator struct {
	Dir    string
	J      *Journal
	Engine Engine
	Judge  Judge
	// Log receives one line per event (submissions, failures, rounds judged).
	Log io.Writer
	// Look is the shortest time between looks for the tasks' records (0: 100 ms)
	// and Ask between questions to the batch system about tasks without one (0:
	// 1 s): a round that has run for t is looked at every t/100 (at most every
	// 10 s) and asked about every t/20 (at most every minute), so that watching a
	// long round costs the file system and the scheduler little and delays the round
	// by about 1 %. Grace is how long a task that ended without a record may take
	// for its record to appear on a shared file system (0: 2 s); it is only an
	// economy: the attempt resubmitted runs the same trials, and only the attempt
	// accepted is merged.
	Look, Ask, Grace time.Duration
	// LeaveRunning keeps the tasks queued or running in the batch system when the
	// coordinator stops (interrupted, or on an error); without it they are cancelled.
	LeaveRunning bool

	unlock io.Closer
	// What the round waits for, as last said, and when (wait).
	waiting   string
	waitingAt time.Time
	probed    bool // the run directory passed the probe (before the first submission)
	// The running total of the shares of round foldRound folded so far (fold).
	acc       *profile.Profile
	pending   []*profile.Profile
	folded    map[int]bool
	foldRound int
}

// Outcome is the result of a finished run: the estimates judged on every trial, and
// the merged profile of every trial.
type Outcome struct {
	Result  *montecarlo.Result
	Profile *profile.Profile
}

// Create makes the run directory dir (which must not hold a journal), copies the
// executables into it and writes the journal of a new run. fragprof and binary are
// the executables the tasks run; spec.TaskArgs must already name files inside dir
// where they name files (the input model: see InputsFile).
func Create(dir, fragprof, binary string, spec Spec) (*Journal, error) {
	if _, err := os.Stat(journalPath(dir)); err == nil {
		return nil, fmt.Errorf("%s already holds a run: continue it with 'fragprof freq --resume %s', or choose another --workdir", dir, dir)
	}
	if spec.Tasks < 1 {
		return nil, fmt.Errorf("a run needs at least one task per round")
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return nil, err
	}
	if err := copyExecutable(fragprof, filepath.Join(dir, "bin", "fragprof")); err != nil {
		return nil, fmt.Errorf("copying fragprof into the run directory: %v", err)
	}
	if err := copyExecutable(binary, filepath.Join(dir, "bin", "prog")); err != nil {
		return nil, fmt.Errorf("copying the program into the run directory: %v", err)
	}
	spec.Attempts = max(spec.Attempts, 1)
	j := &Journal{Version: journalVersion, Started: time.Now().UTC(), Spec: spec,
		Name: "fragprof-" + strconv.FormatInt(time.Now().UnixNano()%(1<<40), 36)}
	return j, j.save(dir)
}

// InputsFile is where Create's caller puts a copy of the input model file.
func InputsFile(dir string) string { return filepath.Join(dir, "inputs.toml") }

// Judge applies the stopping rule to every block of a merged profile, on all its
// trials (montecarlo.FromProfile with the run's rule), and says how many trials the
// rule needs at least before it can decide a varying block (the first round's size).
type Judge struct {
	Profile   func(*profile.Profile) (*montecarlo.Result, error)
	MinTrials uint64
}

// Open takes the run in dir for this process (Create first for a new run); judge
// is the rule of the journal's Spec (Rule, Thresholds).
func Open(dir string, eng Engine, judge Judge, log io.Writer) (*Coordinator, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	j, err := ReadJournal(abs)
	if err != nil {
		return nil, err
	}
	if eng.Name() != j.Spec.Engine {
		return nil, fmt.Errorf("%s is a run of engine %s, not %s", dir, j.Spec.Engine, eng.Name())
	}
	l, err := lock(abs)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	return &Coordinator{Dir: abs, J: j, Engine: eng, Judge: judge, Log: log, unlock: l}, nil
}

// Retune changes the settings of the run (the Slurm options, the attempts per task)
// for the rounds and submissions to come, this coordinator's included, and saves
// them.
func (c *Coordinator) Retune(f func(*Spec)) error {
	f(&c.J.Spec)
	if c.J.Spec.Slurm != nil {
		if _, ok := c.Engine.(*Slurm); ok {
			c.Engine = c.J.Spec.Slurm
		}
	}
	return c.J.save(c.Dir)
}

// grant gives each task of the current round that has used up its attempts as many
// again: it stopped the last coordinator, or failed while none watched, and this
// one was started after the cause was fixed (with the settings given to it).
func (c *Coordinator) grant() {
	j := c.J
	if n := len(j.Rounds); n > 0 && !j.Rounds[n-1].Merged {
		for _, t := range j.Rounds[n-1].Tasks {
			if !t.Accepted && t.Attempts >= max(t.Allowed, j.Spec.Attempts) {
				t.Allowed = t.Attempts + j.Spec.Attempts
			}
		}
	}
}

// Close releases the run.
func (c *Coordinator) Close() error { return c.unlock.Close() }

func (c *Coordinator) logf(format string, a ...any) {
	fmt.Fprintf(c.Log, "fragprof freq: "+format+"\n", a...)
}

// Run drives the run to its end: until the rule decides every block, the trial
// budget is spent or too many trials failed (Spec.MaxFail). Whenever it returns,
// it cancels the run's tasks still queued or running, unless LeaveRunning; then an
// interruption through ctx returns ErrDetached, and the tasks go on. The journal
// is kept for a resumed coordinator either way.
func (c *Coordinator) Run(ctx context.Context) (*Outcome, error) {
	out, err := c.run(ctx)
	if ctx.Err() != nil && c.LeaveRunning {
		return nil, ErrDetached
	}
	// A run that ended well has no task left but one this coordinator may have lost
	// track of: it asks when it submitted anything.
	if !c.LeaveRunning && (err != nil || ctx.Err() != nil || c.probed) {
		c.cancelActive()
	}
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	return out, err
}

// cancelActive cancels the jobs of the run that still have tasks queued or running,
// and marks those tasks to be submitted again: their attempt, cut short by the
// coordinator, is not counted.
func (c *Coordinator) cancelActive() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	j := c.J
	var ids []string
	for _, r := range j.Rounds {
		for _, s := range r.Jobs {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	active, err := c.Engine.Active(ctx, j.Name, ids)
	if err != nil {
		c.logf("the run's tasks could not be listed to cancel them: %v; cancel them with 'scancel --name=%s'", err, j.Name)
		return
	}
	done := map[TaskRef]bool{} // accepted, and perhaps still ending
	for _, r := range j.Rounds {
		for i, t := range r.Tasks {
			if t.Accepted {
				done[TaskRef{r.Jobs[t.Seq].ID, i}] = true
			}
		}
	}
	jobs := map[string]int{}
	for ref := range active {
		if !done[ref] {
			jobs[ref.Job]++
		}
	}
	for _, id := range slices.Sorted(maps.Keys(jobs)) {
		if err := c.Engine.Cancel(ctx, id); err != nil {
			c.logf("cancelling job %s: %v; cancel it with 'scancel %s'", id, err, id)
			continue
		}
		c.logf("cancelled job %s: %d of its tasks were queued or running", id, jobs[id])
	}
	if n := len(j.Rounds); n > 0 {
		round := j.Rounds[n-1]
		for i, t := range round.Tasks {
			if t.Seq >= 0 && !t.Accepted {
				if _, ok := active[TaskRef{round.Jobs[t.Seq].ID, i}]; ok {
					t.Seq = -1
					t.Attempts--
				}
			}
		}
		if err := j.save(c.Dir); err != nil {
			c.logf("%v", err)
		}
	}
}

func (c *Coordinator) run(ctx context.Context) (*Outcome, error) {
	c.grant()
	look, ask, grace := c.Look, c.Ask, c.Grace
	if look == 0 {
		look = 100 * time.Millisecond
	}
	if ask == 0 {
		ask = time.Second
	}
	if grace == 0 {
		grace = 2 * time.Second
	}
	j := c.J
	var asked time.Time
	for {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		n := len(j.Rounds)
		if n > 0 && !j.Rounds[n-1].Merged {
			age := time.Duration(0)
			if js := j.Rounds[n-1].Jobs; len(js) > 0 {
				age = time.Since(js[0].At)
			}
			askNow := time.Since(asked) >= min(max(ask, age/20), time.Minute)
			if askNow {
				asked = time.Now()
			}
			done, err := c.advance(ctx, n-1, grace, askNow)
			if err != nil {
				return nil, err
			}
			if !done {
				select {
				case <-ctx.Done():
				case <-time.After(min(max(look, age/100), 10*time.Second)):
				}
			}
			continue
		}
		// Every round is merged: judge, then finish or plan the next round.
		var merged *profile.Profile
		var res *montecarlo.Result
		var trials uint64
		var failedOut string
		if n > 0 {
			var err error
			if failedOut, err = c.failedOut(); err != nil {
				return nil, err
			}
			if merged, err = profile.ParseFile(mergedFile(c.Dir, n-1)); err != nil {
				return nil, err
			}
			if res, err = c.Judge.Profile(merged); err != nil {
				return nil, fmt.Errorf("%s: %v", mergedFile(c.Dir, n-1), err)
			}
			trials = j.Rounds[n-1].To
		}
		budget := j.Spec.MaxTrials
		switch {
		case j.Stopped != "":
			// A finished run, resumed for its report again.
		case failedOut != "":
			j.Stopped = failedOut
		case j.Spec.Exhaustive && trials >= budget:
			j.Stopped = fmt.Sprintf("every member of the population of %d run once", budget)
		case res != nil && res.Converged && !j.Spec.Exhaustive:
			j.Stopped = "every block decided"
		case trials >= budget:
			j.Stopped = fmt.Sprintf("trial budget (%d) spent", budget)
		}
		if j.Stopped != "" {
			if err := j.save(c.Dir); err != nil {
				return nil, err
			}
			return c.finish(merged, res)
		}
		size := nextRound(trials, need(res), j.Spec.Tasks, c.Judge.MinTrials, budget)
		if j.Spec.Exhaustive {
			size = budget - trials // every member, in one round
		}
		r := &Round{From: trials, To: trials + size}
		// No task without a trial: a round below the budget's end may be smaller
		// than the tasks.
		for range min(uint64(j.Spec.Tasks), size) {
			r.Tasks = append(r.Tasks, &Task{Seq: -1})
		}
		if err := os.MkdirAll(roundDir(c.Dir, n), 0o755); err != nil {
			return nil, err
		}
		j.Rounds = append(j.Rounds, r)
		if err := j.save(c.Dir); err != nil {
			return nil, err
		}
		if res != nil {
			c.logf("round %d done %.1fs after its submission: %d trials so far, %s; next %d trials",
				n, time.Since(j.Rounds[n-1].Jobs[0].At).Seconds(), trials, decidedLine(res), size)
		}
	}
}

// need is the largest projected sample size of the blocks still open (0 with none,
// +Inf when unknown).
func need(res *montecarlo.Result) float64 {
	if res == nil {
		return 0
	}
	m := 0.0
	for fi := range res.Blocks {
		for _, be := range res.Blocks[fi] {
			if be.Decision.State == stats.Unconverged {
				nd := be.Decision.Need
				if math.IsNaN(nd) {
					nd = math.Inf(1)
				}
				m = max(m, nd)
			}
		}
	}
	return m
}

// nextRound sizes the round after trials trials, of which the open blocks need
// about need in all: the first round runs the fewest trials at which the rule can
// decide a varying block (Rule.MinTrials); later ones 10 % more than the
// projection asks, at least a tenth of the trials so far (projections from few
// trials are low as often as high, and each round costs a submission), at least
// one trial per task, and never past the budget.
func nextRound(trials uint64, need float64, tasks int, minTrials, budget uint64) uint64 {
	var n uint64
	if trials == 0 {
		n = minTrials
	} else {
		want := math.Ceil(need * 1.1)
		if want > float64(budget) || math.IsInf(want, 0) {
			want = float64(budget)
		}
		if w := uint64(want); w > trials {
			n = w - trials
		}
		n = max(n, trials/10)
	}
	n = max(n, uint64(tasks))
	return min(n, budget-trials)
}

// advance looks at round r once: accepts the tasks whose records are in, submits
// the round the first time, and merges it when every task is in. With ask, it also
// asks the batch system which tasks still run, and resubmits those that ended
// without a record. It reports whether the round is merged.
func (c *Coordinator) advance(ctx context.Context, r int, grace time.Duration, ask bool) (bool, error) {
	j := c.J
	round := j.Rounds[r]
	var ids []string
	for _, s := range round.Jobs {
		ids = append(ids, s.ID)
	}
	var active map[TaskRef]string
	if len(ids) > 0 && ask {
		var err error
		if active, err = c.Engine.Active(ctx, j.Name, ids); err != nil {
			if ctx.Err() != nil {
				return false, nil
			}
			c.logf("asking the batch system: %v (will ask again)", err)
			return false, nil
		}
	}
	if active != nil {
		c.wait(ctx, fmt.Sprintf("round %d", r+1), round.Jobs[0].At, active)
	}
	var again []int
	changed := false
	for i, t := range round.Tasks {
		if t.Accepted {
			continue
		}
		if t.Seq < 0 {
			again = append(again, i)
			continue
		}
		id := round.Jobs[t.Seq].ID
		rec, p, err := c.share(r, i, t.Seq)
		if err == nil && rec != nil {
			if err := c.fold(r, i, p); err != nil {
				return false, err
			}
			t.Accepted, t.Failed, changed = true, len(rec.Failures), true
			if j.Spec.Exhaustive {
				c.progress(r)
			}
			if err := c.tooManyFailed(r); err != nil {
				return false, errors.Join(err, j.save(c.Dir))
			}
			continue
		}
		if _, running := active[TaskRef{id, i}]; running || (!ask && err == nil) {
			continue
		}
		why := ""
		if err != nil {
			why = err.Error()
		} else {
			// Ended without a record: wait a little for a shared file system to show it.
			if t.endedAt.IsZero() {
				t.endedAt = time.Now()
			}
			if time.Since(t.endedAt) < grace {
				continue
			}
			why = "ended without a record"
			if st := c.Engine.Ended(ctx, id, i); st != "" {
				why += " (" + st + ")"
			}
		}
		why = fmt.Sprintf("attempt %d (job %s_%d): %s; %s", t.Attempts, id, i, why, logTail(taskFile(c.Dir, r, i, t.Seq, "log")))
		t.Errors = append(t.Errors, why)
		changed = true
		c.logf("round %d, task %d: %s", r+1, i, why)
		if t.Attempts >= max(t.Allowed, j.Spec.Attempts) {
			t.Seq = -1 // a resumed run submits it again
			if err := j.save(c.Dir); err != nil {
				return false, err
			}
			return false, fmt.Errorf("round %d, task %d (trials %d, %d, ... of %d:%d) failed %d times, the limit (--max-attempts); the last: %s",
				r+1, i, round.From+uint64(i), round.From+uint64(i+len(round.Tasks)), round.From, round.To, t.Attempts, why)
		}
		t.endedAt = time.Time{}
		again = append(again, i)
	}
	if len(again) > 0 {
		switch err := c.submit(ctx, r, again); {
		case err != nil && transient(err):
			c.logf("round %d: submitting tasks %s: %v (will submit again)", r+1, taskList(again), err)
		case err != nil:
			return false, err
		default:
			changed = true
		}
	}
	if changed {
		if err := j.save(c.Dir); err != nil {
			return false, err
		}
	}
	for _, t := range round.Tasks {
		if !t.Accepted {
			return false, nil
		}
	}
	if err := c.merge(r); err != nil {
		return false, err
	}
	round.Merged = true
	return true, j.save(c.Dir)
}

// progress logs how far an exhaustive run's round r is: the tasks and trials
// accepted, and the time left at the rate so far.
func (c *Coordinator) progress(r int) {
	round := c.J.Rounds[r]
	k := uint64(len(round.Tasks))
	var tasks int
	var trials uint64
	for i, t := range round.Tasks {
		if t.Accepted {
			tasks++
			trials += ShareSize(round.From, round.To, uint64(i), k)
		}
	}
	line := fmt.Sprintf("round %d: %d/%d tasks done, %d/%d members run", r+1, tasks, len(round.Tasks), round.From+trials, round.To)
	if len(round.Jobs) > 0 && tasks < len(round.Tasks) {
		took := time.Since(round.Jobs[0].At)
		left := time.Duration(float64(took) * float64(round.To-round.From-trials) / float64(trials))
		line += fmt.Sprintf(", ~%v left", left.Round(time.Second))
	}
	c.logf("%s", line)
}

// share reads task i's record and profile of submission seq in round r.
func (c *Coordinator) share(r, i, seq int) (*Record, *profile.Profile, error) {
	round := c.J.Rounds[r]
	return readShare(taskFile(c.Dir, r, i, seq, "json"), taskFile(c.Dir, r, i, seq, "fpp"),
		round.From, round.To, uint64(i), uint64(len(round.Tasks)))
}

// submit writes the script of a new submission of round r and submits tasks; the
// first submission of this coordinator waits for the probe of the run directory.
func (c *Coordinator) submit(ctx context.Context, r int, tasks []int) error {
	if !c.probed {
		if err := c.probe(ctx); err != nil {
			return err
		}
		c.probed = true
	}
	j := c.J
	round := j.Rounds[r]
	seq := len(round.Jobs)
	script := filepath.Join(roundDir(c.Dir, r), fmt.Sprintf("job.s%d.sh", seq))
	k := len(round.Tasks)
	base := filepath.Join(roundDir(c.Dir, r), "t${FRAGPROF_TASK}.s"+strconv.Itoa(seq))
	args := []string{filepath.Join(c.Dir, "bin", "fragprof"), "freq", "--binary", filepath.Join(c.Dir, "bin", "prog")}
	args = append(args, j.Spec.TaskArgs...)
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# fragprof freq: round %d (trials %d:%d), submission %d, by the coordinator of %s\n",
		r+1, round.From, round.To, seq, c.Dir)
	b.WriteString(": \"${FRAGPROF_TASK:=${SLURM_ARRAY_TASK_ID:?no task number}}\"\n")
	b.WriteString("exec")
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	fmt.Fprintf(&b, " --shard \"${FRAGPROF_TASK}/%d\" --trial-range %d:%d --profile \"%s.fpp\" --task-record \"%s.json\"\n",
		k, round.From, round.To, base, base)
	if err := os.WriteFile(script, []byte(b.String()), 0o755); err != nil {
		return err
	}
	job := Job{Name: j.Name, Script: script, Tasks: tasks, CPUs: j.Spec.CPUs,
		Log: filepath.Join(roundDir(c.Dir, r), "t{task}.s"+strconv.Itoa(seq)+".log")}
	id, err := c.Engine.Submit(ctx, job)
	if err != nil {
		return err
	}
	round.Jobs = append(round.Jobs, &Submission{Seq: seq, ID: id, Tasks: tasks, At: time.Now().UTC()})
	for _, i := range tasks {
		round.Tasks[i].Seq = seq
		round.Tasks[i].Attempts++
	}
	c.logf("round %d: trials %d:%d, tasks %s submitted as job %s", r+1, round.From, round.To, taskList(tasks), id)
	return nil
}

// fold adds task i's profile p to the running total of round r's shares as soon as
// the task is accepted, so that each profile is read once and the merging overlaps
// the round's last tasks. Profiles wait in groups of mergeGroup, merged at once
// (checking the functions of the total once per group rather than once per
// profile), which also bounds the profiles held in memory. The total lives in
// memory only; a coordinator that resumes folds again the shares accepted before
// it (merge).
func (c *Coordinator) fold(r, i int, p *profile.Profile) error {
	if c.folded == nil || c.foldRound != r {
		c.acc, c.pending, c.folded, c.foldRound = nil, nil, map[int]bool{}, r
	}
	if c.folded[i] {
		return nil
	}
	c.folded[i] = true
	if p == nil { // every trial of the share failed
		return nil
	}
	p.Counters = c.J.Spec.Counters
	c.pending = append(c.pending, p)
	if len(c.pending) < mergeGroup {
		return nil
	}
	return c.flush(r)
}

// mergeGroup is how many profiles fold gathers before merging them into the total.
const mergeGroup = 64

// flush merges the profiles waiting into the total of round r.
func (c *Coordinator) flush(r int) error {
	group := c.pending
	if c.acc != nil {
		group = append([]*profile.Profile{c.acc}, group...)
	}
	c.pending = nil
	switch len(group) {
	case 0:
		return nil
	case 1:
		c.acc = group[0]
		return nil
	}
	m, err := profile.Merge(group)
	if err != nil {
		return fmt.Errorf("merging round %d: %v", r+1, err)
	}
	c.acc = m
	return nil
}

// merge writes rNNN/merged.fpp: the previous round's merged profile and every
// accepted share of round r, merged exactly (the result does not depend on the
// order or grouping, profile.MergeDists).
func (c *Coordinator) merge(r int) error {
	round := c.J.Rounds[r]
	for i, t := range round.Tasks {
		if c.foldRound == r && c.folded[i] {
			continue
		}
		_, p, err := c.share(r, i, t.Seq)
		if err != nil {
			return err
		}
		if err := c.fold(r, i, p); err != nil {
			return err
		}
	}
	if err := c.flush(r); err != nil {
		return err
	}
	total := c.acc
	if total == nil {
		causes, _, err := c.failures()
		if err != nil {
			return err
		}
		return &FailedError{Causes: causes, Reason: fmt.Sprintf("every one of the %d trials of round %d failed: no counts to estimate from", round.To-round.From, r+1)}
	}
	if r > 0 {
		prev, err := profile.ParseFile(mergedFile(c.Dir, r-1))
		if err != nil {
			return err
		}
		if total, err = profile.Merge([]*profile.Profile{prev, total}); err != nil {
			return fmt.Errorf("merging round %d: %v", r+1, err)
		}
	}
	c.acc, c.pending, c.folded = nil, nil, nil
	return total.WriteFile(mergedFile(c.Dir, r))
}

// finish assembles the outcome: the judged estimates with the failures of every
// accepted task, sorted by trial.
func (c *Coordinator) finish(merged *profile.Profile, res *montecarlo.Result) (*Outcome, error) {
	j := c.J
	if res == nil {
		return nil, fmt.Errorf("the run has no trials (--max-trials 0?)")
	}
	for r, round := range j.Rounds {
		for i, t := range round.Tasks {
			rec, err := readRecord(taskFile(c.Dir, r, i, t.Seq, "json"))
			if err != nil {
				return nil, err
			}
			if rec == nil {
				return nil, fmt.Errorf("round %d, task %d: the record of the accepted attempt is gone", r+1, i)
			}
			for _, f := range rec.Failures {
				res.Failures = append(res.Failures, montecarlo.Failure{Trial: f.Trial, Reason: f.Reason, Exit: f.Exit})
			}
		}
	}
	slices.SortFunc(res.Failures, func(a, b montecarlo.Failure) int { return cmp.Compare(a.Trial, b.Trial) })
	causes, _, err := c.failures()
	if err != nil {
		return nil, err
	}
	res.Causes, res.FailedOut = causes, strings.HasSuffix(j.Stopped, "(--max-fail)")
	res.Elapsed = time.Since(j.Started)
	res.Stopped = fmt.Sprintf("%s after %d rounds of %d %s tasks (%d trials; judged on the merged profile: the trial at which each block converged and the convergence series are not kept)",
		j.Stopped, len(j.Rounds), j.Spec.Tasks, j.Spec.Engine, j.Rounds[len(j.Rounds)-1].To)
	return &Outcome{Result: res, Profile: merged}, nil
}

func decidedLine(res *montecarlo.Result) string {
	decided, all := 0, 0
	for fi := range res.Blocks {
		for _, be := range res.Blocks[fi] {
			all++
			if be.Decision.State != stats.Unconverged {
				decided++
			}
		}
	}
	return fmt.Sprintf("%d/%d blocks decided", decided, all)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
