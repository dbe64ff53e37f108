package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/report"
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
	for !hasChild(cmd.Process.Pid, "prog") {
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

// hasChild reports whether process pid has a child whose command name is comm. A
// child belongs to the thread that forked it, so every thread's list is read.
func hasChild(pid int, comm string) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, c := range strings.Fields(string(data)) {
			if name, err := os.ReadFile("/proc/" + c + "/comm"); err == nil && strings.TrimSpace(string(name)) == comm {
				return true
			}
		}
	}
	return false
}
