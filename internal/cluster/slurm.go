// This file is the Slurm engine: sbatch submits a round as an array job, squeue
// tells which tasks are still queued or running, sacct (or scontrol, on a cluster
// without accounting) how an ended task ended, scancel cancels.

package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Slurm submits through the Slurm commands found on PATH; SLURM_CONF and the other
// SLURM_* variables of the environment choose the cluster.
type Slurm struct {
	Partition string   // sbatch --partition; "" for the cluster's default
	Time      string   // sbatch --time, a task's time limit; "" for the partition's
	Extra     []string // further sbatch options, e.g. --mem=2G, --account=…
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
		return "", fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), msg)
	}
	return out.String(), nil
}

// Submit implements Engine: one array job, `sbatch --array=LIST`.
func (s *Slurm) Submit(ctx context.Context, j Job) (string, error) {
	args := []string{"--parsable", "--job-name=" + j.Name, "--array=" + taskList(j.Tasks),
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
	out, err := slurmCmd(ctx, "squeue", "--noheader", "--array", "--name="+name, "--format=%F %K %T")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	active := map[TaskRef]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || !want[f[0]] {
			continue
		}
		// %K is the task's number, or a range "[3-7%2]" for tasks not yet split off.
		for _, t := range expandTasks(f[1]) {
			active[TaskRef{f[0], t}] = f[2]
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
