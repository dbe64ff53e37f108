//go:build integration

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/runner"
)

// TestSIGKILLLeavesNothing kills `fragprof count`, `fragprof freq` (a fork server
// and its trial), `fragprof time` and `fragprof sample` with SIGKILL, which no cleanup survives, while
// their program waits to be stopped (testdata/kill.c): the program dies with
// fragprof (a parent-death signal), and the temporary directories left in TMPDIR are
// removed by the next fragprof that makes one.
func TestSIGKILLLeavesNothing(t *testing.T) {
	fp := fragprofBinary(t)
	plain := filepath.Join(t.TempDir(), "kill")
	if out, err := exec.Command("clang", "-O2", "-g", "testdata/kill.c", "-o", plain).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args  []string
		child string // the program's command name
		temp  bool   // fragprof makes a temporary directory
	}{
		{[]string{"count", "testdata/kill.c"}, "prog", true},
		{[]string{"freq", "testdata/kill.c", "--max-trials", "3"}, "prog", true},
		{[]string{"time", "testdata/kill.c", "--fragment", "func:step", "--reps", "5"}, "prog", true},
		{[]string{"sample", "-o", filepath.Join(t.TempDir(), "s.batches"), "--", plain}, "kill", false},
	} {
		args := tc.args
		t.Run(args[0], func(t *testing.T) {
			tmp := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := groupCommand(ctx, fp, args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever is left, if the test fails
			var progs []int
			for len(progs) == 0 || !runner.HasDescendant(cmd.Process.Pid, tc.child) {
				if ctx.Err() != nil {
					t.Fatalf("the program never started\n%s", stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
				progs = runner.Descendants(cmd.Process.Pid)
			}
			time.Sleep(200 * time.Millisecond)
			progs = runner.Descendants(cmd.Process.Pid)
			cmd.Process.Kill()
			cmd.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for _, p := range progs {
				for alive(p) && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
				if alive(p) {
					t.Errorf("process %d of the program still runs 10 s after fragprof was killed", p)
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
			if !tc.temp {
				return
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "fragprof-*"))
			if len(left) == 0 {
				t.Fatalf("no temporary directory left by the killed fragprof: the test proves nothing")
			}
			// An abandoned directory is reaped once its lock file is older than the
			// grace a new one has (10 s): make it so rather than wait.
			old := time.Now().Add(-time.Hour)
			for _, d := range left {
				os.Chtimes(filepath.Join(d, ".fragprof-lock"), old, old)
			}
			next := groupCommand(ctx, fp, "count", "../../examples/straight.c")
			next.Env = cmd.Env
			if out, err := next.CombinedOutput(); err != nil {
				t.Fatalf("the next count: %v\n%s", err, out)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
				t.Errorf("left in TMPDIR after the next fragprof: %v", left)
			}
		})
	}
}

// alive reports whether process pid exists and is no zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
