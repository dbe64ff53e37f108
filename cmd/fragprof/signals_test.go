//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/runner"
)

// manyFuncs writes a C file of n small functions, which clang takes seconds to
// compile: a build long enough to be interrupted.
func manyFuncs(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "int f%d(int x) { if (x > %d) return x - %d; return x * 3 + %d; }\n", i, i, i, i)
	}
	b.WriteString("int main(void) { return f0(1) & 1; }\n")
	src := filepath.Join(dir, "many.c")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return src
}

// A signalCase is a command signalled once a process named child runs under it.
type signalCase struct {
	name   string
	args   []string
	child  string         // a descendant's command name: the moment to signal
	sig    syscall.Signal // sent to fragprof's pid, or to its process group
	group  bool
	code   int      // the exit status wanted
	want   []string // in stderr
	absent []string // not in stderr
}

// runSignalCase runs c in a process group of its own and sends its signal once the
// child runs; the command must end within 10 s of it, with c.code and c.want.
func runSignalCase(t *testing.T, fp string, c signalCase) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := groupCommand(ctx, fp, c.args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // a program left behind
	for !runner.HasDescendant(cmd.Process.Pid, c.child) {
		if ctx.Err() != nil {
			t.Fatalf("%s: no %s started\n%s", c.name, c.child, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	target := cmd.Process.Pid
	if c.group {
		target = -target
	}
	syscall.Kill(target, c.sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("%s: still running 10 s after %v\n%s", c.name, c.sig, stderr.String())
	}
	if ee, ok := err.(*osexec.ExitError); !ok || ee.ExitCode() != c.code {
		t.Errorf("%s: %v, want exit status %d\n%s", c.name, err, c.code, stderr.String())
	}
	for _, w := range c.want {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, stderr.String())
		}
	}
	for _, a := range c.absent {
		if strings.Contains(stderr.String(), a) {
			t.Errorf("%s: stderr says %q:\n%s", c.name, a, stderr.String())
		}
	}
	return stderr.String()
}

// TestSignalEndsCommand sends SIGINT or SIGTERM to fragprof alone (kill PID) or to
// its process group (Ctrl-C, a job control's kill) while it builds, runs trials or
// samples: every command ends within seconds, exits 130 after SIGINT and 143 after
// SIGTERM, and names the signal it got. Before, a signal during the build killed
// fragprof silently (or was reported as "clang failed", exit 1), freq exited 130 on
// SIGTERM, and sample waited for a program that no signal had reached.
func TestSignalEndsCommand(t *testing.T) {
	fp := fragprofBinary(t)
	dir := t.TempDir()
	many := manyFuncs(t, dir, 3000)
	plain := filepath.Join(dir, "kill")
	if out, err := osexec.Command("clang", "-O2", "-g", "testdata/kill.c", "-o", plain).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	freqJSON := filepath.Join(dir, "freq.json")
	cases := []signalCase{
		{name: "count: SIGINT to fragprof while clang builds", args: []string{"count", many}, child: "clang", sig: syscall.SIGINT,
			code: 130, want: []string{"fragprof count: interrupted (SIGINT) while"}, absent: []string{"clang failed"}},
		{name: "count: SIGTERM to the group while clang builds", args: []string{"count", many}, child: "clang", sig: syscall.SIGTERM, group: true,
			code: 143, want: []string{"fragprof count: terminated (SIGTERM) while"}, absent: []string{"clang failed", "killed by"}},
		{name: "count: SIGTERM to fragprof while the program runs", args: []string{"count", "testdata/kill.c"}, child: "prog", sig: syscall.SIGTERM,
			code: 143, want: []string{"terminated (SIGTERM): the program was killed by SIGTERM"}, absent: []string{"still running"}},
		{name: "freq --jobs 100000: SIGTERM to fragprof", args: []string{"freq", "../../examples/newton.c", "--input", "ask = uniform(100, 800)",
			"--stdin", `{ask}\n`, "--rel-eps", "1e-9", "--max-trials", "100000000", "--jobs", "100000", "--json", "-o", freqJSON},
			child: "prog", sig: syscall.SIGTERM, code: 143, want: []string{"--jobs 100000 is more than"}},
		{name: "freq --replay: SIGTERM to fragprof", args: []string{"freq", "testdata/spin.c", "--input", "n = 3", "--replay", "0"},
			child: "prog", sig: syscall.SIGTERM, code: 143, want: []string{"fragprof freq: trial 0 terminated (SIGTERM): it ended with killed by SIGTERM"}},
		{name: "sample in process: SIGINT to fragprof", args: []string{"sample", "--sampler", "inprocess", "-o", filepath.Join(dir, "a.batches"), "--", plain},
			child: "kill", sig: syscall.SIGINT, code: 130, want: []string{"fragprof sample: interrupted: the batches so far are kept"}},
		{name: "sample under ptrace: SIGTERM to fragprof", args: []string{"sample", "--sampler", "ptrace", "-o", filepath.Join(dir, "b.batches"), "--", plain},
			child: "kill", sig: syscall.SIGTERM, code: 143, want: []string{"fragprof sample: terminated: the batches so far are kept"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runSignalCase(t, fp, c) })
	}
	// freq's partial result, unless the signal came before a trial had ended.
	data, err := os.ReadFile(freqJSON)
	if err != nil {
		return
	}
	var r report.JSONFreq
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Stopped != "terminated" || r.Trials == 0 {
		t.Errorf("freq's partial result after SIGTERM: stopped %q after %d trials, want terminated after some", r.Stopped, r.Trials)
	}
}

// TestExactMaxInstructions bounds sample --exact on a program that never ends: it
// stops after --max-instructions and ends the program it started. Before, it
// detached and then waited for the program forever.
func TestExactMaxInstructions(t *testing.T) {
	fp := fragprofBinary(t)
	dir := t.TempDir()
	spin := filepath.Join(dir, "spin")
	if out, err := osexec.Command("clang", "-O1", "-g", "testdata/spin.c", "-o", spin).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := groupCommand(ctx, fp, "sample", "--exact", "--max-instructions", "20000", "-o", filepath.Join(dir, "exact.cfg"), "--", spin)
	out, err := cmd.CombinedOutput()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if ctx.Err() != nil {
		t.Fatalf("sample --exact --max-instructions 20000 on an endless program did not end within 2 minutes\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "(--max-instructions): detached, and the program ended with SIGTERM") {
		t.Errorf("sample --exact --max-instructions: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "exact.cfg")); err != nil {
		t.Errorf("no graph written: %v", err)
	}
}
