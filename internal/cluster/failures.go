// This file judges the failed trials of a run as freq --max-fail judges them on one
// machine, from the tasks' records.

package cluster

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fragprof/fragprof/internal/montecarlo"
)

// failWindow is the trials from which --max-fail's fraction is counted
// (montecarlo.Config.FailWindow's default).
const failWindow = 100

// A FailedError stops a run whose trials failed: more than --max-fail of them, or
// every one. Causes tallies them, each with its first trial, to replay.
type FailedError struct {
	Reason string
	Causes []montecarlo.Cause
}

func (e *FailedError) Error() string { return e.Reason }

// maxFail is the run's --max-fail fraction.
func (c *Coordinator) maxFail() float64 {
	if c.J.Spec.MaxFail > 0 {
		return c.J.Spec.MaxFail
	}
	return 0.1
}

// failedSoFar counts the failed trials in the accepted records of every round.
func (c *Coordinator) failedSoFar() uint64 {
	var n uint64
	for _, r := range c.J.Rounds {
		for _, t := range r.Tasks {
			if t.Accepted {
				n += uint64(t.Failed)
			}
		}
	}
	return n
}

// tooManyFailed stops the run during round r, without waiting for its other tasks,
// when every trial run so far failed and they are more than the fraction of all
// the trials up to the round's end: a run on one machine, which stops at the first
// trial n where more than --max-fail of trials 0..n failed (counted from the
// 100th), stops by then. Where some trials succeed, the round is waited for, and
// failedOut finds the trial a run on one machine stops at.
func (c *Coordinator) tooManyFailed(r int) error {
	to := c.J.Rounds[r].To
	failed := c.failedSoFar()
	if failed < c.trialsDone() || float64(failed) <= c.maxFail()*float64(max(to, failWindow)) {
		return nil
	}
	causes, _, err := c.failures()
	if err != nil {
		return err
	}
	return &FailedError{Causes: causes, Reason: fmt.Sprintf("every one of the %d trials run failed, more than %g %% (--max-fail): no counts to estimate from; the round's other tasks were not waited for",
		failed, 100*c.maxFail())}
}

// trialsDone counts the trials of the accepted tasks of every round.
func (c *Coordinator) trialsDone() uint64 {
	var n uint64
	for _, r := range c.J.Rounds {
		k := uint64(len(r.Tasks))
		for i, t := range r.Tasks {
			if t.Accepted {
				n += ShareSize(r.From, r.To, uint64(i), k)
			}
		}
	}
	return n
}

// failedOut applies --max-fail to every trial of the rounds merged, in trial order
// as one machine does: it returns why the run stops ("" when it goes on).
func (c *Coordinator) failedOut() (string, error) {
	if c.failedSoFar() == 0 {
		return "", nil
	}
	_, trials, err := c.failures()
	if err != nil {
		return "", err
	}
	// After trial f_k, the k-th failure, k of f_k + 1 trials failed.
	for k, f := range trials {
		if float64(k+1) > c.maxFail()*float64(max(f+1, failWindow)) {
			return fmt.Sprintf("%d of %d trials failed: more than %g %% (--max-fail)", k+1, f+1, 100*c.maxFail()), nil
		}
	}
	return "", nil
}

// failures reads the accepted records of every round: the causes of their failed
// trials, each with its first trial, and the failed trials' numbers, sorted.
func (c *Coordinator) failures() ([]montecarlo.Cause, []uint64, error) {
	var causes []montecarlo.Cause
	var trials []uint64
	for r, round := range c.J.Rounds {
		for i, t := range round.Tasks {
			if !t.Accepted || t.Failed == 0 {
				continue
			}
			rec, err := readRecord(taskFile(c.Dir, r, i, t.Seq, "json"))
			if err != nil {
				return nil, nil, err
			}
			if rec == nil {
				return nil, nil, fmt.Errorf("round %d, task %d: the record of the accepted attempt is gone", r+1, i)
			}
			for _, f := range rec.Failures {
				trials = append(trials, f.Trial)
			}
			for _, rc := range rec.Causes {
				k := slices.IndexFunc(causes, func(x montecarlo.Cause) bool { return x.Cause == rc.Cause })
				if k < 0 {
					causes = append(causes, montecarlo.Cause{Cause: rc.Cause, First: rc.First})
					k = len(causes) - 1
				}
				causes[k].Trials += rc.Trials
				causes[k].First = min(causes[k].First, rc.First)
			}
		}
	}
	slices.Sort(trials)
	slices.SortFunc(causes, func(a, b montecarlo.Cause) int { return cmp.Compare(a.First, b.First) })
	return causes, trials, nil
}
