//go:build integration

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/runner"
)

// TestFreqInterrupt sends SIGINT to a running `fragprof freq` (as Ctrl-C does) and
// checks that it stops within seconds, writes the partial result with its state, and
// exits 130.
func TestFreqInterrupt(t *testing.T) {
	dir := t.TempDir()
	fp := filepath.Join(dir, "fragprof")
	if out, err := exec.Command("go", "build", "-o", fp, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "est.json")
	cmd := exec.Command(fp, "freq", "../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", `{ask}\n`,
		"--rel-eps", "1e-9", "--max-trials", "100000000", "--json", "-o", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until trials run — a fork server (the built program, "prog") is a child
	// of fragprof — then interrupt.
	deadline := time.Now().Add(60 * time.Second)
	for !runner.HasDescendant(cmd.Process.Pid, "prog") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no trials started within 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 130 {
			t.Errorf("exit: %v, want status 130", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("freq did not stop within 20 s of SIGINT")
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no partial result: %v", err)
	}
	var r report.JSONFreq
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Stopped != "interrupted" || r.Trials == 0 || r.States["unconverged"] == 0 {
		t.Errorf("partial result: stopped %q after %d trials, states %v", r.Stopped, r.Trials, r.States)
	}
}

// TestInterruptGroup sends SIGINT to the whole process group of fragprof and its
// program, as Ctrl-C at a terminal does, while count, time, trace and sample run a
// program that waits to be stopped (testdata/kill.c): fragprof must outlive the
// program, report what it has, marked, and exit 130. Before, count died of the
// SIGINT with the program and printed nothing, trace failed on the fork server's
// death, and count warned of processes still running that the program never started.
func TestInterruptGroup(t *testing.T) {
	fp := fragprofBinary(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "kill")
	if out, err := exec.Command("clang", "-O2", "-g", "testdata/kill.c", "-o", plain).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	cases := []struct {
		name  string
		args  []string
		child string   // the program's command name, a child of fragprof
		want  []string // in stderr
		not   string   // not in stderr
	}{
		{"count", []string{"count", "testdata/kill.c"}, "prog",
			[]string{"interrupted (SIGINT): the program was killed by SIGINT", "step  (testdata/kill.c:6)  calls 1000"}, "still running"},
		{"time", []string{"time", "testdata/kill.c", "--fragment", "func:step", "--reps", "5"}, "prog",
			[]string{"interrupted: the measurement stopped early"}, ""},
		{"trace", []string{"trace", "testdata/kill.c", "--trials", "5", "-o", filepath.Join(dir, "traces")}, "prog",
			[]string{"fragprof trace: interrupted: the traces so far are kept"}, ""},
		{"sample", []string{"sample", "-o", filepath.Join(dir, "s.batches"), "--", plain}, "kill",
			[]string{"fragprof sample: interrupted: the batches so far are kept"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := groupCommand(ctx, fp, tc.args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The program says "ready" once it has called step 1000 times and waits;
			// it is a child of fragprof, or of the fork server fragprof started.
			for !runner.HasDescendant(cmd.Process.Pid, tc.child) {
				if ctx.Err() != nil {
					t.Fatalf("the program never started\n%s", stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(time.Second)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			err := cmd.Wait()
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // a program left behind
			if ctx.Err() != nil {
				t.Fatalf("%s did not end within 90 s, SIGINT included\n%s", tc.name, stderr.String())
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Errorf("%s: %v, want exit status 130\n%s", tc.name, err, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("%s: the report lacks %q:\n%s", tc.name, w, stderr.String())
				}
			}
			if tc.not != "" && strings.Contains(stderr.String(), tc.not) {
				t.Errorf("%s: the report says %q:\n%s", tc.name, tc.not, stderr.String())
			}
		})
	}
}
