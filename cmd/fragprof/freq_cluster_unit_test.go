package main

import (
	"strings"
	"testing"
)

// TestFreqClusterUsage: the errors of the cluster flags, which need no cluster.
func TestFreqClusterUsage(t *testing.T) {
	newton := []string{"freq", "../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", `{ask}\n`}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{append(newton, "--engine", "pbs"), 2, `--engine "pbs": want local or slurm`},
		{append(newton, "--engine", "slurm"), 2, "needs --workdir DIR"},
		{append(newton, "--engine", "slurm", "--workdir", "w", "--shard", "0/2"), 2, "--shard does not apply"},
		{append(newton, "--workdir", "w"), 2, "--workdir needs --engine slurm"},
		{append(newton, "--trial-range", "5:5", "--profile", "p.fpp"), 2, "want FROM:TO with FROM < TO"},
		{append(newton, "--trial-range", "0:10"), 2, "needs --profile"},
		{append(newton, "--trial-range", "0:10", "--profile", "p.fpp", "--max-trials", "5"), 2, "--max-trials does not apply"},
		{append(newton, "--trial-range", "0:2", "--shard", "3/4", "--profile", "p.fpp"), 2, "holds no trial"},
		{append(newton, "--task-record", "r.json"), 2, "--task-record needs --trial-range"},
		{append(newton, "--max-running", "2"), 2, "--max-running needs --engine slurm"},
		{append(newton, "--leave-running"), 2, "--leave-running needs --engine slurm"},
		{append(newton, "--engine", "slurm", "--workdir", "w", "--max-running", "-1"), 2, "--max-running -1: want 0 (no limit) or more"},
		{[]string{"freq", "--status", "w", "--max-running", "2"}, 2, "--max-running do(es) not apply"},
		{[]string{"freq", "--resume", "w", "--json"}, 2, "--json do(es) not apply"},
		{[]string{"freq", "--status", t.TempDir()}, 1, "not a run directory"},
		{[]string{"freq", "--resume", t.TempDir()}, 1, "not a run directory"},
	} {
		_, stderr, code := runFragprof(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.msg, stderr)
		}
	}
}
