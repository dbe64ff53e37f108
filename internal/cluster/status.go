// This file reports the state of a run from its journal, for `freq --status`.

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/profile"
)

// RunStatus is the state of a run: `freq --status DIR --json` writes it.
type RunStatus struct {
	Dir      string    `json:"dir"`
	Engine   string    `json:"engine"`
	JobName  string    `json:"job_name"`
	Started  time.Time `json:"started"`
	Finished bool      `json:"finished"`
	// Stopped says why the run ended; "" while it runs (or its coordinator stopped).
	Stopped   string `json:"stopped,omitempty"`
	Tasks     int    `json:"tasks_per_round"`
	Attempts  int    `json:"max_attempts"`
	MaxTrials uint64 `json:"max_trials"`
	// BatchError is why the batch system could not be asked for the active tasks.
	BatchError string        `json:"batch_error,omitempty"`
	Rounds     []RoundStatus `json:"rounds"`
	// Stuck names what keeps active tasks from running, with the command that ends
	// the wait (Engine.Stuck).
	Stuck    []string        `json:"stuck,omitempty"`
	Estimate *EstimateStatus `json:"estimate,omitempty"`
}

// RoundStatus is one round: its trials, its tasks accepted and active (by their
// state in the batch system, "PENDING (Resources)"), its failed attempts.
type RoundStatus struct {
	Round    int            `json:"round"`
	From     uint64         `json:"from"`
	To       uint64         `json:"to"`
	Tasks    int            `json:"tasks"`
	Accepted int            `json:"accepted"`
	Active   int            `json:"active"`
	States   map[string]int `json:"states"`
	Failed   int            `json:"failed_attempts"`
	Jobs     []string       `json:"jobs"`
	Merged   bool           `json:"merged"`
	Errors   []TaskError    `json:"errors"`
}

// TaskError is one failed attempt of a task.
type TaskError struct {
	Task  int    `json:"task"`
	Error string `json:"error"`
}

// EstimateStatus is the stopping rule's judgement of the trials merged so far.
type EstimateStatus struct {
	Rounds  int            `json:"rounds"`
	Trials  uint64         `json:"trials"`
	Profile string         `json:"profile"`
	Decided int            `json:"decided"`
	Blocks  int            `json:"blocks"`
	States  map[string]int `json:"states"`
	// The widest interval of an open block, where, and the trials the open blocks
	// need (0 when every block is decided).
	Widest float64 `json:"widest_half_width,omitempty"`
	At     string  `json:"widest_at,omitempty"`
	Need   float64 `json:"need_trials,omitempty"`
}

// Status writes the state of the run in dir, as text or as JSON (RunStatus): its
// rounds, each round's tasks (accepted, active in the batch system by state,
// failed attempts), what keeps active tasks waiting, and the estimate on the
// trials merged so far. eng, when not nil, is asked which tasks are still queued
// or running; judge is the run's rule. Status takes no lock and changes nothing.
func Status(ctx context.Context, w io.Writer, dir string, eng Engine, judge Judge, asJSON bool) error {
	st, err := status(ctx, dir, eng, judge)
	if err != nil {
		return err
	}
	if asJSON {
		data, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	}
	st.write(w)
	return nil
}

func status(ctx context.Context, dir string, eng Engine, judge Judge) (*RunStatus, error) {
	j, err := ReadJournal(dir)
	if err != nil {
		return nil, err
	}
	st := &RunStatus{Dir: dir, Engine: j.Spec.Engine, JobName: j.Name, Started: j.Started, Finished: j.Stopped != "",
		Stopped: j.Stopped, Tasks: j.Spec.Tasks, Attempts: j.Spec.Attempts, MaxTrials: j.Spec.MaxTrials, Rounds: []RoundStatus{}}
	var ids []string
	for _, r := range j.Rounds {
		for _, s := range r.Jobs {
			ids = append(ids, s.ID)
		}
	}
	var active map[TaskRef]string
	if eng != nil && len(ids) > 0 && j.Stopped == "" {
		if active, err = eng.Active(ctx, j.Name, ids); err != nil {
			st.BatchError = err.Error()
		} else if len(active) > 0 {
			st.Stuck = eng.Stuck(ctx, active)
		}
	}
	last := -1
	for ri, r := range j.Rounds {
		rs := RoundStatus{Round: ri + 1, From: r.From, To: r.To, Tasks: len(r.Tasks), States: map[string]int{},
			Jobs: []string{}, Merged: r.Merged, Errors: []TaskError{}}
		for i, t := range r.Tasks {
			rs.Failed += len(t.Errors)
			for _, e := range t.Errors {
				rs.Errors = append(rs.Errors, TaskError{i, e})
			}
			if t.Accepted {
				rs.Accepted++
				continue
			}
			if t.Seq >= 0 {
				if s, ok := active[TaskRef{r.Jobs[t.Seq].ID, i}]; ok {
					rs.Active++
					rs.States[s]++
				}
			}
		}
		for _, s := range r.Jobs {
			rs.Jobs = append(rs.Jobs, s.ID)
		}
		if r.Merged {
			last = ri
		}
		st.Rounds = append(st.Rounds, rs)
	}
	if last < 0 {
		return st, nil
	}
	p, err := profile.ParseFile(mergedFile(dir, last))
	if err != nil {
		return nil, err
	}
	res, err := judge.Profile(p)
	if err != nil {
		return nil, err
	}
	est := &EstimateStatus{Rounds: last + 1, Trials: res.Trials, Profile: mergedFile(dir, last), States: map[string]int{}}
	for fi, f := range res.Prog.Funcs {
		for b, be := range res.Blocks[fi] {
			est.Blocks++
			est.States[be.Decision.State.String()]++
			if be.Decision.State != stats.Unconverged {
				est.Decided++
			} else if be.Decision.HalfWidth > est.Widest {
				est.Widest, est.At = be.Decision.HalfWidth, fmt.Sprintf("%s:%s", f.Name, f.Blocks[b].Label)
			}
		}
	}
	if n := need(res); est.At != "" && !math.IsInf(n, 0) {
		est.Need = n
	}
	st.Estimate = est
	return st, nil
}

// write prints the status as text.
func (st *RunStatus) write(w io.Writer) {
	state := "running (or its coordinator stopped: continue with fragprof freq --resume " + st.Dir + ")"
	if st.Finished {
		state = "finished: " + st.Stopped
	}
	fmt.Fprintf(w, "run %s: engine %s, job name %s, started %s, %s\n", st.Dir, st.Engine, st.JobName,
		st.Started.Format(time.RFC3339), state)
	fmt.Fprintf(w, "%d tasks per round, at most %d attempts per task, trial budget %d\n", st.Tasks, st.Attempts, st.MaxTrials)
	if st.BatchError != "" {
		fmt.Fprintf(w, "(the batch system does not answer: %s)\n", st.BatchError)
	}
	fmt.Fprintf(w, "%-6s %-17s %-6s %-9s %-7s %-7s %s\n", "round", "trials", "tasks", "accepted", "active", "failed", "jobs")
	for _, r := range st.Rounds {
		fmt.Fprintf(w, "%-6d %-17s %-6d %-9d %-7d %-7d %s\n", r.Round, fmt.Sprintf("%d:%d", r.From, r.To),
			r.Tasks, r.Accepted, r.Active, r.Failed, strings.Join(r.Jobs, ","))
		if len(r.States) > 0 {
			fmt.Fprintf(w, "  active tasks: %s\n", StateCounts(r.States))
		}
		for _, e := range r.Errors {
			fmt.Fprintf(w, "  task %d: %s\n", e.Task, e.Error)
		}
	}
	for _, s := range st.Stuck {
		fmt.Fprintf(w, "waiting: %s\n", s)
	}
	e := st.Estimate
	if e == nil {
		fmt.Fprintln(w, "no round merged yet")
		return
	}
	fmt.Fprintf(w, "estimate on rounds 1..%d (%d trials, %s): %d/%d blocks decided", e.Rounds, e.Trials, e.Profile, e.Decided, e.Blocks)
	for _, s := range []stats.State{stats.Converged, stats.Constant, stats.Inadequate, stats.Rare, stats.Unseen, stats.Unconverged} {
		if n := e.States[s.String()]; n > 0 {
			fmt.Fprintf(w, ", %d %s", n, s)
		}
	}
	if e.At != "" {
		fmt.Fprintf(w, "; widest open interval ±%.3g at %s, the open blocks need ~%.0f trials", e.Widest, e.At, e.Need)
	}
	fmt.Fprintln(w)
}
