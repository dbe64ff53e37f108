// Package cluster runs `fragprof freq` beyond one machine. A coordinator splits the
// trials into rounds and submits each round to a batch system (an Engine: Slurm) as
// an array of tasks, task i of K running `fragprof freq --binary … --shard i/K
// --trial-range FROM:TO --profile …` on its share of the round's trials. When a round is
// complete the coordinator merges the tasks' profiles exactly (profile.Merge),
// judges all trials so far by the stopping rule (montecarlo.FromProfile) and, while
// blocks are open, sizes the next round from the trials they still need.
//
// Trial t's inputs depend only on the seed and t, and each round continues the trial
// numbers where the last ended, so the merged profile is, bit for bit, the profile a
// single machine writes for the same seed and the same total trials.
//
// The run directory is the journal (journal.json, and per round the tasks' scripts,
// logs, profiles and records): a task that fails, times out or is preempted is
// resubmitted with the same trials, a bounded number of times; a task's profile is
// used only when its record says it ran its whole share, and only the attempt the
// journal accepted is merged, once; a coordinator that dies is continued by a new
// one on the same directory (Open, Run).
//
// Before its first submission a coordinator runs a probe job that checks the run
// directory from a node; while it waits it names what keeps tasks from running
// (Engine.Stuck); the run's failed trials are judged as freq --max-fail judges them
// on one machine; and when it stops it cancels the tasks still queued or running,
// unless told to leave them.
package cluster

import (
	"context"
	"strconv"
	"strings"
)

// An Engine runs arrays of tasks on a batch system. It is deliberately small: a
// Kubernetes Indexed Job or any array-capable scheduler fits it.
type Engine interface {
	// Name is the engine's name, as recorded in the journal ("slurm").
	Name() string
	// Submit starts one job whose tasks are numbered j.Tasks and returns its id.
	Submit(ctx context.Context, j Job) (string, error)
	// Active returns, for the given job ids, the tasks still queued or running
	// (their state in the batch system's words); a task absent from the map has
	// ended, well or not: its record says which.
	Active(ctx context.Context, name string, ids []string) (map[TaskRef]string, error)
	// Ended explains how a task ended ("FAILED exit 1:0", "TIMEOUT"), or "" when the
	// batch system no longer knows.
	Ended(ctx context.Context, id string, task int) string
	// Cancel ends a job's tasks that are still queued or running.
	Cancel(ctx context.Context, id string) error
	// Stuck names what keeps the active tasks from running, when it is not their
	// turn in the queue (held jobs, nodes down or drained, a partition down), each
	// with the command that ends the wait; nil when nothing is stuck.
	Stuck(ctx context.Context, active map[TaskRef]string) []string
	// Nodes lists the nodes that may run the tasks (by their short host names).
	Nodes(ctx context.Context) ([]string, error)
}

// TaskRef names one task of one job.
type TaskRef struct {
	Job  string
	Task int
}

// A Job is one submission: some tasks of one round.
type Job struct {
	// Name is the run's job name (the same for every job of a run).
	Name string
	// Script is the path of a shell script that runs one task; the engine sets
	// FRAGPROF_TASK to the task's number in its environment.
	Script string
	// Log is the path of a task's output, with "{task}" for its number.
	Log   string
	Tasks []int
	CPUs  int // per task
}

// taskList writes tasks (sorted, distinct) as ranges: "0-63", "3,7,9-11".
func taskList(tasks []int) string {
	var b strings.Builder
	for i := 0; i < len(tasks); {
		j := i
		for j+1 < len(tasks) && tasks[j+1] == tasks[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(tasks[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(tasks[j]))
		}
		i = j + 1
	}
	return b.String()
}
