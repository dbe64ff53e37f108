package cluster

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/montecarlo"
)

// The coordinator against a real Slurm cluster is tested in cmd/fragprof
// (TestFreqSlurm*); these are the pieces that need none.

func TestShareSize(t *testing.T) {
	// Shares of a round partition its trials, whatever K.
	for _, c := range []struct{ from, to, k uint64 }{{0, 9017, 4}, {9017, 20000, 3}, {5, 6, 2}, {0, 10, 10}, {100, 163, 64}} {
		var sum uint64
		for i := uint64(0); i < c.k; i++ {
			n := ShareSize(c.from, c.to, i, c.k)
			// Counting directly: trials t with (t − from) mod k = i.
			var want uint64
			for t := c.from; t < c.to; t++ {
				if (t-c.from)%c.k == i {
					want++
				}
			}
			if n != want {
				t.Errorf("ShareSize(%d, %d, %d, %d) = %d, want %d", c.from, c.to, i, c.k, n, want)
			}
			sum += n
		}
		if sum != c.to-c.from {
			t.Errorf("%d:%d in %d shares: %d trials", c.from, c.to, c.k, sum)
		}
	}
}

func TestTaskLists(t *testing.T) {
	for _, c := range []struct {
		tasks []int
		list  string
	}{{[]int{0, 1, 2, 3}, "0-3"}, {[]int{3, 7, 9, 10, 11}, "3,7,9-11"}, {[]int{5}, "5"}} {
		if got := taskList(c.tasks); got != c.list {
			t.Errorf("taskList(%v) = %q, want %q", c.tasks, got, c.list)
		}
		// squeue prints pending tasks in sbatch's syntax, in brackets.
		got := expandTasks("[" + c.list + "%4]")
		if len(got) != len(c.tasks) {
			t.Fatalf("expandTasks([%s]) = %v", c.list, got)
		}
		for i := range got {
			if got[i] != c.tasks[i] {
				t.Errorf("expandTasks([%s]) = %v, want %v", c.list, got, c.tasks)
			}
		}
	}
}

func TestNextRound(t *testing.T) {
	const budget = 1_000_000
	for _, c := range []struct {
		trials uint64
		need   float64
		tasks  int
		want   uint64
	}{
		{0, 0, 64, 9017},                      // the rule's minimum
		{0, 0, 20000, 20000},                  // at least a trial per task
		{9017, 20000, 8, 22000 - 9017},        // 10 % above the projection
		{9017, 8500, 8, 901},                  // at least a tenth of the trials so far
		{9017, math.Inf(1), 8, budget - 9017}, // unknown: the budget
		{990_000, 5e6, 8, budget - 990_000},   // never past the budget
		{999_998, 1_000_001, 8, budget - 999_998},
	} {
		if got := nextRound(c.trials, c.need, c.tasks, 9017, budget); got != c.want {
			t.Errorf("nextRound(%d, %g, %d) = %d, want %d", c.trials, c.need, c.tasks, got, c.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"--eps":                  "--eps",
		"{ask}\\n":               `'{ask}\n'`,
		"ask = uniform(1, 2)":    `'ask = uniform(1, 2)'`,
		"it's":                   `'it'\''s'`,
		"":                       "''",
		"/scratch/run1/bin/prog": "/scratch/run1/bin/prog",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestRecords: a task that did not run its whole share writes no record, and a
// record that does not match the share it was given is refused.
func TestRecords(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "t1.s0.json")
	partial := &montecarlo.Result{Trials: 3, Stopped: "interrupted"}
	if err := WriteRecord(rec, 0, 20, 1, 2, partial); err == nil || !strings.Contains(err.Error(), "3 of its 10") {
		t.Fatalf("a partial share: %v", err)
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Fatalf("a partial share left a record: %v", err)
	}
	if r, p, err := readShare(rec, filepath.Join(dir, "t1.s0.fpp"), 0, 20, 1, 2); r != nil || p != nil || err != nil {
		t.Fatalf("no record: %v %v %v", r, p, err)
	}
	// Every trial failed: a record without a profile.
	all := &montecarlo.Result{Failures: make([]montecarlo.Failure, 10)}
	if err := WriteRecord(rec, 0, 20, 1, 2, all); err != nil {
		t.Fatal(err)
	}
	if r, _, err := readShare(rec, filepath.Join(dir, "t1.s0.fpp"), 0, 20, 1, 2); err != nil || r == nil || len(r.Failures) != 10 {
		t.Fatalf("a share of failures: %+v %v", r, err)
	}
	if _, _, err := readShare(rec, filepath.Join(dir, "t1.s0.fpp"), 0, 20, 0, 2); err == nil || !strings.Contains(err.Error(), "shard 1/2, not") {
		t.Fatalf("a record of another share: %v", err)
	}
}

// TestFailedOut: --max-fail judged from the tasks' records stops at the trial a run
// on one machine stops at, folding the same trials one by one in order.
func TestFailedOut(t *testing.T) {
	for _, c := range []struct {
		to     uint64
		failed []uint64
	}{
		{151, []uint64{7, 9, 20, 33, 40, 41, 50, 52, 60, 61, 70, 80, 85, 87, 140}}, // 11 failures by trial 87
		{151, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},                              // 10 of 100: not more than 10 %
		{300, []uint64{5, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134}},
	} {
		dir := t.TempDir()
		co := &Coordinator{Dir: dir, J: &Journal{Spec: Spec{MaxFail: 0.1}}}
		round := &Round{From: 0, To: c.to}
		const k = 3
		for i := range k {
			rec := Record{From: 0, To: c.to, Shard: uint64(i), Shards: k, Failures: []Failure{}}
			for _, f := range c.failed {
				if f%k == uint64(i) {
					rec.Failures = append(rec.Failures, Failure{Trial: f, Reason: "killed by SIGABRT"})
				}
			}
			rec.Trials = ShareSize(0, c.to, uint64(i), k) - uint64(len(rec.Failures))
			data, _ := json.Marshal(rec)
			if err := os.MkdirAll(roundDir(dir, 0), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(taskFile(dir, 0, i, 0, "json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			round.Tasks = append(round.Tasks, &Task{Seq: 0, Accepted: true, Failed: len(rec.Failures)})
		}
		co.J.Rounds = []*Round{round}
		got, err := co.failedOut()
		if err != nil {
			t.Fatal(err)
		}
		// One machine: after each trial, more than 10 % of max(seen, 100) failed?
		want, n := "", 0
		for trial := uint64(0); trial < c.to && want == ""; trial++ {
			if slices.Contains(c.failed, trial) {
				n++
				if float64(n) > 0.1*float64(max(trial+1, 100)) {
					want = fmt.Sprintf("%d of %d trials failed: more than 10 %% (--max-fail)", n, trial+1)
				}
			}
		}
		if got != want {
			t.Errorf("failures at %v of %d trials: %q, want %q", c.failed, c.to, got, want)
		}
	}
}
