// This file is the Slurm engine: sbatch submits a round as an array job, squeue
// tells which tasks are still queued or running, sacct (or scontrol, on a cluster
// without accounting) how an ended task ended, scancel cancels.

package cluster

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Slurm submits through the Slurm commands found on PATH; SLURM_CONF and the other
// SLURM_* variables of the environment choose the cluster.
type Slurm struct {
	Partition string   // sbatch --partition; "" for the cluster's default
	Time      string   // sbatch --time, a task's time limit; "" for the partition's
	Extra     []string // further sbatch options, e.g. --mem=2G, --account=…
	// MaxRunning, above 0, is the array's throttle: at most this many of its tasks
	// run at once (sbatch --array=LIST%N).
	MaxRunning int `json:",omitempty"`
}

// Name implements Engine.
func (s *Slurm) Name() string { return "slurm" }

// slurmCmd runs a Slurm command and returns its standard output; a failure is an
// error with the command and what it printed.
func slurmCmd(ctx context.Context, name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		err := fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), msg)
		if transient(err) {
			err = fmt.Errorf("%v (does slurmctld run? 'scontrol ping' says)", err)
		}
		return "", err
	}
	return out.String(), nil
}

// Submit implements Engine: one array job, `sbatch --array=LIST`.
func (s *Slurm) Submit(ctx context.Context, j Job) (string, error) {
	array := taskList(j.Tasks)
	if s.MaxRunning > 0 {
		array += "%" + strconv.Itoa(s.MaxRunning)
	}
	args := []string{"--parsable", "--job-name=" + j.Name, "--array=" + array,
		"--output=" + strings.ReplaceAll(j.Log, "{task}", "%a"),
		"--cpus-per-task=" + strconv.Itoa(max(1, j.CPUs)),
		// Preempted or failed on a node: Slurm may requeue the task itself; the
		// coordinator resubmits what ends without a record anyway.
		"--requeue"}
	if s.Partition != "" {
		args = append(args, "--partition="+s.Partition)
	}
	if s.Time != "" {
		args = append(args, "--time="+s.Time)
	}
	args = append(args, s.Extra...)
	args = append(args, j.Script)
	out, err := slurmCmd(ctx, "sbatch", args...)
	if err != nil {
		return "", err
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch printed %q, not a job id", out)
	}
	return id, nil
}

// Active implements Engine with one squeue call for the run's job name: asking by
// name does not fail on jobs Slurm has already forgotten, as asking by id does.
func (s *Slurm) Active(ctx context.Context, name string, ids []string) (map[TaskRef]string, error) {
	out, err := slurmCmd(ctx, "squeue", "--noheader", "--array", "--name="+name, "--format=%F|%K|%T|%r")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	active := map[TaskRef]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "|", 4)
		if len(f) != 4 || !want[f[0]] {
			continue
		}
		st := f[2]
		if f[3] != "" && f[3] != "None" && st != "RUNNING" {
			st += " (" + f[3] + ")" // why it waits: "PENDING (Resources)"
		}
		// %K is the task's number, or a range "[3-7%2]" for tasks not yet split off.
		for _, t := range expandTasks(f[1]) {
			active[TaskRef{f[0], t}] = st
		}
	}
	return active, nil
}

// expandTasks reads squeue's %K: "5", or "[0-3,7]" (with an optional "%limit").
func expandTasks(s string) []int {
	s = strings.Trim(s, "[]")
	s, _, _ = strings.Cut(s, "%")
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for t := a; t <= b; t++ {
			out = append(out, t)
		}
	}
	return out
}

// Ended implements Engine: sacct when the cluster keeps accounting, else scontrol,
// which knows a job for MinJobAge after it ended.
func (s *Slurm) Ended(ctx context.Context, id string, task int) string {
	ref := fmt.Sprintf("%s_%d", id, task)
	if out, err := slurmCmd(ctx, "sacct", "--noheader", "--parsable2", "--allocations", "--jobs="+ref, "--format=State,ExitCode"); err == nil {
		if line := strings.TrimSpace(out); line != "" {
			st, code, _ := strings.Cut(strings.Split(line, "\n")[0], "|")
			return st + " exit " + code
		}
	}
	out, err := slurmCmd(ctx, "scontrol", "--oneliner", "show", "job", ref)
	if err != nil {
		return ""
	}
	var st, code string
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "JobState="); ok {
			st = v
		}
		if v, ok := strings.CutPrefix(f, "ExitCode="); ok {
			code = v
		}
	}
	if st == "" {
		return ""
	}
	return st + " exit " + code
}

// Cancel implements Engine.
func (s *Slurm) Cancel(ctx context.Context, id string) error {
	_, err := slurmCmd(ctx, "scancel", id)
	return err
}

// MaxArraySize asks the cluster for its MaxArraySize: array task ids are below it.
func (s *Slurm) MaxArraySize(ctx context.Context) (int, error) {
	out, err := slurmCmd(ctx, "scontrol", "show", "config")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "MaxArraySize" {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("scontrol show config names no MaxArraySize")
}

// Stuck implements Engine: tasks held (by an administrator, a user, or Slurm after
// a failed launch), and a partition whose nodes are all down, drained or not
// responding, or which is itself down, each with the command that ends the wait.
// Tasks shown running on a node whose slurmd died are stuck too: Slurm notices
// only after SlurmdTimeout, and sinfo marks the node not responding ("mixed*")
// before.
func (s *Slurm) Stuck(ctx context.Context, active map[TaskRef]string) []string {
	held := map[string]string{}
	for ref, st := range active {
		if strings.HasPrefix(st, "PENDING") && strings.Contains(strings.ToLower(st), "held") {
			held[ref.Job] = st
		}
	}
	var out []string
	for _, id := range slices.Sorted(maps.Keys(held)) {
		out = append(out, fmt.Sprintf("job %s is held: %s; once its cause is fixed, 'scontrol release %s' lets it run", id, held[id], id))
	}
	return append(out, s.partitionStuck(ctx)...)
}

// Nodes implements Engine: the nodes of the partition (sinfo).
func (s *Slurm) Nodes(ctx context.Context) ([]string, error) {
	args := []string{"--noheader", "--Node", "--format=%N|%P"}
	if s.Partition != "" {
		args = append(args, "--partition="+s.Partition)
	}
	out, err := slurmCmd(ctx, "sinfo", args...)
	if err != nil {
		return nil, err
	}
	var nodes []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		node, part, ok := strings.Cut(line, "|")
		if ok && (s.Partition != "" || strings.HasSuffix(part, "*")) && !slices.Contains(nodes, node) {
			nodes = append(nodes, node)
		}
	}
	return nodes, nil
}

// transient reports whether a Slurm command failed because the controller did not
// answer (restarting, overloaded): the same command may succeed later.
func transient(err error) bool {
	msg := err.Error()
	for _, m := range []string{"Unable to contact slurm controller", "Socket timed out", "temporarily unable", "Resource temporarily unavailable", "Zero Bytes were transmitted"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// partitionStuck names the partition's trouble when none of its nodes can run a
// task: the partition down, or each node down, drained or not responding.
func (s *Slurm) partitionStuck(ctx context.Context) []string {
	args := []string{"--noheader", "--Node", "--format=%N|%T|%E|%P|%a"}
	if s.Partition != "" {
		args = append(args, "--partition="+s.Partition)
	}
	list, err := slurmCmd(ctx, "sinfo", args...)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		f := strings.SplitN(line, "|", 5)
		if len(f) != 5 || seen[f[0]] {
			continue
		}
		part := strings.TrimSuffix(f[3], "*")
		if s.Partition == "" && !strings.HasSuffix(f[3], "*") {
			continue // not the default partition
		}
		if f[4] != "up" {
			return []string{fmt.Sprintf("partition %s is %s: 'scontrol update partitionname=%s state=up' opens it", part, f[4], part)}
		}
		seen[f[0]] = true
		node, state, why := f[0], f[1], f[2]
		switch {
		case strings.HasSuffix(state, "*"):
			bad = append(bad, fmt.Sprintf("node %s is %s: not responding (is its slurmd running?); once slurmd runs, 'scontrol update nodename=%s state=resume' returns it", node, state, node))
		case strings.HasPrefix(state, "down"), strings.HasPrefix(state, "drain"), strings.HasPrefix(state, "fail"):
			bad = append(bad, fmt.Sprintf("node %s is %s (reason: %s); once its cause is fixed, 'scontrol update nodename=%s state=resume' returns it", node, state, why, node))
		default:
			return nil // a node can run tasks: they wait for their turn
		}
	}
	return bad
}
