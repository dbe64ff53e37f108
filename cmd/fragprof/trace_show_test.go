//go:build integration

package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTraceShowAndBudget traces a real program, prints a trace as text and as
// CSV, and checks that --max-size warns ahead and stops the run when reached,
// keeping the files written.
func TestTraceShowAndBudget(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	_, stderr, code := runFragprof(t, "trace", "../../examples/predict/brusselator.c",
		"--input", "K = choice(8, 16)", "--stdin", `{K}\n`, "--trials", "3", "--clock", "thread", "-o", traces)
	if code != 0 {
		t.Fatalf("trace: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "of trace files") {
		t.Errorf("trace summary gives no size:\n%s", stderr)
	}
	file := filepath.Join(traces, "trial-000000.fpt")
	out, stderr, code := runFragprof(t, "trace", "show", file, "--events", "5")
	if code != 0 {
		t.Fatalf("trace show: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"trial 0", "inputs: K = ", "clock thread", "row → row", "events (5 of", "start  K="} {
		if !strings.Contains(out, want) {
			t.Errorf("trace show lacks %q:\n%s", want, out)
		}
	}
	out, stderr, code = runFragprof(t, "trace", "show", file, "--format", "csv")
	if code != 0 {
		t.Fatalf("trace show --format csv: exit %d\n%s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) < 4 {
		t.Fatalf("csv: %v, %d rows", err, len(rows))
	}
	if got := strings.Join(rows[0][:6], ","); got != "thread,event,time_ns,dt_ns,checkpoint,place" {
		t.Errorf("csv header %q", got)
	}
	if rows[1][4] != "start" || rows[len(rows)-1][4] != "end" || !strings.Contains(rows[1][5], "brusselator.c:") {
		t.Errorf("csv rows: first %v, last %v", rows[1], rows[len(rows)-1])
	}
	if _, _, code := runFragprof(t, "trace", "show", file, "--format", "xml"); code != 2 {
		t.Errorf("--format xml: exit %d, want 2", code)
	}
	// The budget: one trace file is a few kB; 3 kB lets the first one through
	// with a warning (3 runs would need more) and stops at the second.
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	limit := info.Size() + info.Size()/2
	small := filepath.Join(dir, "small")
	_, stderr, code = runFragprof(t, "trace", "../../examples/predict/brusselator.c",
		"--input", "K = choice(8)", "--stdin", `{K}\n`, "--trials", "3", "--clock", "thread",
		"--max-size", strconv.FormatInt(limit, 10), "-o", small)
	if code == 0 || !strings.Contains(stderr, "warning: at ") || !strings.Contains(stderr, "stopped after 2 of 3 runs") {
		t.Errorf("--max-size: exit %d\n%s", code, stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(small, "*.fpt")); len(files) != 2 {
		t.Errorf("%d trace files kept, want 2", len(files))
	}
	if _, stderr, code := runFragprof(t, "trace", "x.c", "--max-size", "lots", "-o", small); code != 2 || !strings.Contains(stderr, "not a size") {
		t.Errorf("--max-size lots: exit %d\n%s", code, stderr)
	}
}

// TestTraceClockFallback: with the TSC's calibration unstable (forced through the
// runtime's test switch), the runs are timed with the monotonic clock and both
// trace and trace show say so.
func TestTraceClockFallback(t *testing.T) {
	t.Setenv("FRAGPROF_TRACE_TSC_UNSTABLE", "1")
	dir := filepath.Join(t.TempDir(), "traces")
	_, stderr, code := runFragprof(t, "trace", "../../examples/predict/brusselator.c",
		"--input", "K = choice(4)", "--stdin", `{K}\n`, "--trials", "2", "-o", dir)
	if code != 0 || !strings.Contains(stderr, "TSC's calibration was unstable") || !strings.Contains(stderr, "2 runs were timed with the monotonic clock") {
		t.Fatalf("trace: exit %d\n%s", code, stderr)
	}
	out, _, code := runFragprof(t, "trace", "show", filepath.Join(dir, "trial-000001.fpt"), "--events", "0")
	if code != 0 || !strings.Contains(out, "clock monotonic") || !strings.Contains(out, "calibration was unstable") {
		t.Errorf("trace show: exit %d\n%s", code, out)
	}
	t.Setenv("FRAGPROF_TRACE_TSC_UNSTABLE", "")
	_, stderr, code = runFragprof(t, "trace", "../../examples/predict/brusselator.c",
		"--input", "K = choice(4)", "--stdin", `{K}\n`, "--trials", "1", "-o", dir+"2")
	if code != 0 || strings.Contains(stderr, "unstable") {
		t.Errorf("a stable TSC: exit %d\n%s", code, stderr)
	}
}

// TestTraceRoundsFreshServer: with --repeat, every round runs in a fresh fork
// server (a fresh exec: a new address-space layout) while the trials of one round
// share one. The program records its parent — the server — at a checkpoint: the
// two trials of a round have the same parent, the three rounds three different
// ones.
func TestTraceRoundsFreshServer(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "parent.c")
	if err := os.WriteFile(src, []byte(`#include <unistd.h>
#include "fragprof.h"
int main(void) {
	long parent = (long)getppid();
	FP_POINT_VARS("start", FP_I(parent));
	FP_POINT("end");
	return 0;
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	traces := filepath.Join(dir, "traces")
	if _, stderr, code := runFragprof(t, "trace", src, "--trials", "2", "--repeat", "3", "-o", traces); code != 0 {
		t.Fatalf("trace: exit %d\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(traces, "*.fpt"))
	if len(files) != 6 {
		t.Fatalf("%d trace files, want 6: %v", len(files), files)
	}
	byRound := map[string]map[string]bool{} // round suffix → parents
	for _, f := range files {
		out, stderr, code := runFragprof(t, "trace", "show", f, "--format", "csv")
		if code != 0 {
			t.Fatalf("trace show %s: exit %d\n%s", f, code, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) < 2 || rows[0][len(rows[0])-1] != "parent" {
			t.Fatalf("%s: csv %v, rows %v", f, err, rows)
		}
		round := "r00"
		if i := strings.Index(filepath.Base(f), "-r"); i >= 0 {
			round = filepath.Base(f)[i+1 : i+4]
		}
		if byRound[round] == nil {
			byRound[round] = map[string]bool{}
		}
		byRound[round][rows[1][len(rows[1])-1]] = true
	}
	all := map[string]bool{}
	for round, parents := range byRound {
		if len(parents) != 1 {
			t.Errorf("round %s: the trials ran under %d servers, want 1: %v", round, len(parents), parents)
		}
		for p := range parents {
			all[p] = true
		}
	}
	if len(byRound) != 3 || len(all) != 3 {
		t.Errorf("%d rounds under %d servers, want 3 under 3: %v", len(byRound), len(all), byRound)
	}
}
