// This file prints the state of a run from its journal, for `freq --status`.

package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/profile"
)

// Status writes the state of the run in dir: its rounds, each round's tasks
// (accepted, active in the batch system, failed attempts), and the estimate on the
// trials merged so far. eng, when not nil, is asked which tasks are still queued or
// running; judge is the run's rule. Status takes no lock and changes nothing.
func Status(ctx context.Context, w io.Writer, dir string, eng Engine, judge Judge) error {
	j, err := ReadJournal(dir)
	if err != nil {
		return err
	}
	state := "running (or its coordinator stopped: continue with fragprof freq --resume " + dir + ")"
	if j.Stopped != "" {
		state = "finished: " + j.Stopped
	}
	fmt.Fprintf(w, "run %s: engine %s, job name %s, started %s, %s\n", dir, j.Spec.Engine, j.Name,
		j.Started.Format(time.RFC3339), state)
	fmt.Fprintf(w, "%d tasks per round, at most %d attempts per task, trial budget %d\n", j.Spec.Tasks, j.Spec.Attempts, j.Spec.MaxTrials)
	var ids []string
	for _, r := range j.Rounds {
		for _, s := range r.Jobs {
			ids = append(ids, s.ID)
		}
	}
	var active map[TaskRef]string
	if eng != nil && len(ids) > 0 && j.Stopped == "" {
		if active, err = eng.Active(ctx, j.Name, ids); err != nil {
			fmt.Fprintf(w, "(the batch system does not answer: %v)\n", err)
		}
	}
	fmt.Fprintf(w, "%-6s %-17s %-6s %-9s %-7s %-7s %s\n", "round", "trials", "tasks", "accepted", "active", "failed", "jobs")
	last := -1
	for ri, r := range j.Rounds {
		acc, act, failed := 0, 0, 0
		states := map[string]int{}
		for i, t := range r.Tasks {
			failed += len(t.Errors)
			if t.Accepted {
				acc++
				continue
			}
			if t.Seq >= 0 {
				if st, ok := active[TaskRef{r.Jobs[t.Seq].ID, i}]; ok {
					act++
					states[st]++
				}
			}
		}
		var jobs []string
		for _, s := range r.Jobs {
			jobs = append(jobs, s.ID)
		}
		line := fmt.Sprintf("%-6d %-17s %-6d %-9d %-7d %-7d %s", ri+1, fmt.Sprintf("%d:%d", r.From, r.To),
			len(r.Tasks), acc, act, failed, strings.Join(jobs, ","))
		if len(states) > 0 {
			line += fmt.Sprintf(" %v", states)
		}
		if r.Merged {
			last = ri
		}
		fmt.Fprintln(w, line)
		for i, t := range r.Tasks {
			for _, e := range t.Errors {
				fmt.Fprintf(w, "  task %d: %s\n", i, e)
			}
		}
	}
	if last < 0 {
		fmt.Fprintln(w, "no round merged yet")
		return nil
	}
	p, err := profile.ParseFile(mergedFile(dir, last))
	if err != nil {
		return err
	}
	res, err := judge.Profile(p)
	if err != nil {
		return err
	}
	counts := map[stats.State]int{}
	widest, at := 0.0, ""
	for fi, f := range res.Prog.Funcs {
		for b, be := range res.Blocks[fi] {
			counts[be.Decision.State]++
			if be.Decision.State == stats.Unconverged && be.Decision.HalfWidth > widest {
				widest, at = be.Decision.HalfWidth, fmt.Sprintf("%s:%s", f.Name, f.Blocks[b].Label)
			}
		}
	}
	fmt.Fprintf(w, "estimate on rounds 1..%d (%d trials, %s): %s", last+1, res.Trials, mergedFile(dir, last), decidedLine(res))
	for _, s := range []stats.State{stats.Converged, stats.Constant, stats.Inadequate, stats.Rare, stats.Unseen, stats.Unconverged} {
		if counts[s] > 0 {
			fmt.Fprintf(w, ", %d %s", counts[s], s)
		}
	}
	if at != "" {
		fmt.Fprintf(w, "; widest open interval ±%.3g at %s, the open blocks need ~%.0f trials", widest, at, need(res))
	}
	fmt.Fprintln(w)
	return nil
}
