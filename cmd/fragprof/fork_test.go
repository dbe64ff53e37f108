package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// TestForkFreq: a fork-server trial is all the processes of the program. In
// testdata/fork.c every trial forks three children (one of them execs the program
// again) and calls work 32 times in five process images; in testdata/forklate.c the
// trial's main returns at once and an orphaned grandchild calls work 20 ms later,
// 7 calls in three processes. Each trial's counts are exactly those, on two
// workers and in-process: no process's counts are dropped, and none land in another
// trial. Before, freq reported 5 and 1 calls (the main process's alone).
func TestForkFreq(t *testing.T) {
	for _, c := range []struct {
		name, src string
		calls     float64
		args      []string
	}{
		{"fork", "testdata/fork.c", 32, []string{"--jobs", "2"}},
		{"late-edges", "testdata/forklate.c", 7, []string{"--jobs", "2", "--counters", "edges"}},
		{"late", "testdata/forklate.c", 7, []string{"--jobs", "2"}},
		{"in-process", "testdata/fork.c", 32, []string{"--isolation", "none"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "freq.json")
			args := append([]string{"freq", c.src, "--max-trials", "24", "--json", "-o", out}, c.args...)
			_, stderr, code := cli(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var r report.JSONFreq
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			if r.Trials != 24 || len(r.Failures) != 0 {
				t.Fatalf("%d trials, failures %v; want 24 and none", r.Trials, r.Failures)
			}
			found := false
			for _, f := range r.Functions {
				if f.Name != "work" {
					continue
				}
				found = true
				if f.Calls != c.calls {
					t.Errorf("work called %g times per trial, want %g", f.Calls, c.calls)
				}
				for _, b := range f.Blocks {
					if b.Label == "entry" && (b.Mean != c.calls || b.Variance != 0 || b.N != 24) {
						t.Errorf("work's entry: mean %g, variance %g over %d trials; want %g, 0 over 24", b.Mean, b.Variance, b.N, c.calls)
					}
				}
			}
			if !found {
				t.Fatal("no function work in the report")
			}
		})
	}
}
