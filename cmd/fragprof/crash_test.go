//go:build integration

package main

// Tests of how programs end: crashing programs end under fragprof exactly
// as their plain clang builds do, with their counts kept and the signal named.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/report"
)

var (
	fragprofOnce sync.Once
	fragprofPath string
	fragprofErr  error
	fragprofDir  string
)

// TestMain removes the fragprof binary that fragprofBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	stopSlurm()
	if fragprofDir != "" {
		os.RemoveAll(fragprofDir)
	}
	os.Exit(code)
}

// fragprofBinary builds fragprof once per test binary, for tests that must run it as a
// process of its own (signals, hangs).
func fragprofBinary(t *testing.T) string {
	t.Helper()
	fragprofOnce.Do(func() {
		fragprofDir, fragprofErr = os.MkdirTemp("", "fragprof-test")
		if fragprofErr != nil {
			return
		}
		fragprofPath = filepath.Join(fragprofDir, "fragprof")
		out, err := osexec.Command("go", "build", "-o", fragprofPath, ".").CombinedOutput()
		if err != nil {
			fragprofErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if fragprofErr != nil {
		t.Fatal(fragprofErr)
	}
	return fragprofPath
}

// groupCommand is a command run in a process group of its own, the whole group killed
// when ctx ends: a hanging program that fragprof started goes with it.
func groupCommand(ctx context.Context, name string, args ...string) *osexec.Cmd {
	cmd := osexec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// waitStatus returns how cmd ended (after Run or Wait returned err).
func waitStatus(t *testing.T, cmd *osexec.Cmd, err error) syscall.WaitStatus {
	t.Helper()
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	return cmd.ProcessState.Sys().(syscall.WaitStatus)
}

// TestCrashCorpus builds every program of testdata/crash with plain clang and with
// fragprof, at -O0 and -O2, and checks that the fragprof build ends as the plain one
// (the same signal), that `count` keeps the counts up to the crash, names the signal
// and exits 128 + signal as a shell would. Before the fix, null_store at -O2 fell off
// the end of main into fragprof's unit constructor, which registered the unit again
// and made the crash handler write an endless dump: count never returned.
func TestCrashCorpus(t *testing.T) {
	fp := fragprofBinary(t)
	srcs, _ := filepath.Glob("testdata/crash/*.c")
	if len(srcs) < 8 {
		t.Fatalf("%d programs in testdata/crash, want 8", len(srcs))
	}
	for _, src := range srcs {
		for _, opt := range []string{"-O0", "-O2"} {
			name := strings.TrimSuffix(filepath.Base(src), ".c") + opt
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				plain := filepath.Join(dir, "plain")
				if out, err := osexec.Command("clang", opt, "-w", src, "-o", plain).CombinedOutput(); err != nil {
					t.Fatalf("clang: %v\n%s", err, out)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				cmd := osexec.CommandContext(ctx, plain)
				ps := waitStatus(t, cmd, cmd.Run())
				if !ps.Signaled() {
					t.Fatalf("the plain build ended with %v, not by a signal: the program is no crash test", ps)
				}
				sig := ps.Signal()

				out := filepath.Join(dir, "counts.json")
				var stderr strings.Builder
				cmd = groupCommand(ctx, fp, "count", "--opt", opt, "--cflags", "-w", src, "--json", "-o", out)
				cmd.Stderr = &stderr
				fs := waitStatus(t, cmd, cmd.Run())
				if ctx.Err() != nil {
					t.Fatalf("fragprof count did not end within 60 s (the plain build died of %s)\n%s", unix.SignalName(sig), stderr.String())
				}
				if fs.Signaled() || fs.ExitStatus() != 128+int(sig) {
					t.Errorf("fragprof count ended with %v, want exit status %d (128 + %s)", fs, 128+int(sig), unix.SignalName(sig))
				}
				if !strings.Contains(stderr.String(), unix.SignalName(sig)) {
					t.Errorf("the report does not name %s:\n%s", unix.SignalName(sig), stderr.String())
				}
				if line, fn, whats := faultMarker(t, src, opt); line > 0 {
					loc := fmt.Sprintf("(%s:%d)", filepath.Base(src), line)
					if fn != "" {
						loc = fmt.Sprintf("in %s (%s:", fn, filepath.Base(src))
					}
					past := false
					for _, w := range whats {
						past = past || strings.Contains(w, "just past the end")
						if !strings.Contains(stderr.String(), w) {
							t.Errorf("the report does not say %q:\n%s", w, stderr.String())
						}
					}
					if !past && !strings.Contains(stderr.String(), loc) {
						t.Errorf("the report does not name the faulting place %s:\n%s", loc, stderr.String())
					}
				}
				data, err := os.ReadFile(out)
				if err != nil {
					t.Fatalf("no report: %v\n%s", err, stderr.String())
				}
				var p report.JSONProgram
				if err := json.Unmarshal(data, &p); err != nil {
					t.Fatal(err)
				}
				calls := map[string]uint64{}
				for _, f := range p.Functions {
					calls[f.Name] = deref(f.Calls)
				}
				if calls["main"] != 1 || calls["work"] != 10 {
					t.Errorf("calls main=%d work=%d, want 1 and 10", calls["main"], calls["work"])
				}
			})
		}
	}
}

// faultMarker finds the line of src marked "/* fault: WHAT; WHAT... */" or "/* fault in
// FUNC: WHAT... */" (testdata/crash/README.md), FUNC, and the WHATs that hold at opt;
// 0 when there is none.
func faultMarker(t *testing.T, src, opt string) (int, string, []string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		_, m, ok := strings.Cut(l, "/* fault")
		if !ok {
			continue
		}
		m, _, _ = strings.Cut(m, "*/")
		fn := ""
		if rest, ok := strings.CutPrefix(m, " in "); ok {
			fn, m, _ = strings.Cut(rest, ":")
			m = ":" + m
		}
		var whats []string
		for _, w := range strings.Split(strings.TrimPrefix(m, ":"), ";") {
			w = strings.TrimSpace(w)
			if lvl := strings.LastIndex(w, " -O"); lvl >= 0 {
				if w[lvl+1:] != opt {
					continue
				}
				w = w[:lvl]
			}
			if w != "" {
				whats = append(whats, w)
			}
		}
		return i + 1, fn, whats
	}
	return 0, "", nil
}

// TestNoMain: a file without main fails to link under `fragprof cc` with the linker's
// own error, as with plain clang (the runtime once supplied a main that aborted), and
// count and freq say what to do instead.
func TestNoMain(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "nomain.c")
	if err := os.WriteFile(src, []byte("int twice(int x) { return 2 * x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := cli(t, "", "cc", src, "-o", filepath.Join(dir, "nm"))
	if code == 0 || !strings.Contains(stderr, "undefined reference to `main'") {
		t.Errorf("cc: exit %d, want non-zero with the linker's undefined reference to main:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "nm")); err == nil {
		t.Error("cc wrote a binary")
	}
	for _, cmd := range [][]string{{"count", src}, {"freq", src, "--input", "x = uniform(0, 1)"}} {
		_, stderr, code := cli(t, "", cmd...)
		if code == 0 || !strings.Contains(stderr, "no main function in "+src+": use --func NAME") {
			t.Errorf("%s: exit %d, want non-zero and \"no main function\":\n%s", cmd[0], code, stderr)
		}
	}
}

// TestForkCounts counts testdata/fork.c, whose parent forks three children: one ends
// by exit(), one returns from main, one execs the program again. The counts of all
// five process images are added up, under every counter scheme, exactly. Before,
// the children's counts were dropped.
func TestForkCounts(t *testing.T) {
	want := map[string]uint64{
		"entry": 2, "for.body": 7, // two images ran main: the first and the exec'd one
		"for.body9": 3, "if.end14": 6, // three forks, each returning twice
		"if.then17": 3, "if.then20": 1, "for.body29": 20, "if.then37": 1, "if.end38": 1,
		"if.end39": 3, "for.body59": 5,
	}
	for _, s := range schemes {
		t.Run(s, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "counts.json")
			_, stderr, code := cli(t, "", "count", "testdata/fork.c", "--counters", s, "--json", "-o", out)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			p := readJSON[report.JSONProgram](t, out)
			for _, f := range p.Functions {
				switch f.Name {
				case "work":
					if deref(f.Calls) != 32 {
						t.Errorf("work called %d times, want 10 + 10 + 7 + 5 = 32", deref(f.Calls))
					}
				case "main":
					for _, b := range f.Blocks {
						if w, ok := want[b.Label]; ok && deref(b.Count) != w {
							t.Errorf("main block %s: count %d, want %d", b.Label, deref(b.Count), w)
						}
					}
				}
			}
		})
	}
}

// TestCountTimeout: count --timeout stops a program that never ends and reports its
// counts so far, marked, with exit status 124 — exact even in a loop that calls
// nothing (spin.c), where -O2 once kept the counters in registers and dropped them:
// step was reported called 0 times. time --timeout stops the measurement the same way.
func TestCountTimeout(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "counts.json")
		_, stderr, code := cli(t, "", "count", "testdata/spin.c", "--counters", "blocks", "--timeout", "1s", "--json", "-o", out)
		if code != 124 || !strings.Contains(stderr, "timed out: the program ran past --timeout 1s") {
			t.Fatalf("exit %d, want 124 and \"timed out\"\n%s", code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			report.JSONProgram
			Ended countEnd `json:"ended"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		if !r.Ended.TimedOut || r.Ended.Signal != "SIGTERM" || r.Ended.Status != 143 {
			t.Errorf("ended %+v, want timed out by SIGTERM (status 143)", r.Ended)
		}
		var calls, body uint64
		for _, f := range r.Functions {
			switch f.Name {
			case "step":
				calls = deref(f.Calls)
			case "main":
				for _, b := range f.Blocks {
					if len(b.Lines) == 1 && b.Lines[0] == 9 { // s += step(i);
						body = deref(b.Count)
					}
				}
			}
		}
		// The loop body calls step once per pass; the stop may fall between the two.
		if calls < 1000 || body < calls || body > calls+1 {
			t.Errorf("step called %d times, the loop body ran %d times: want many, and equal up to the pass stopped midway", calls, body)
		}
	})
	t.Run("time", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := cli(t, "", "time", "testdata/kill.c", "--fragment", "func:step", "--reps", "5", "--timeout", "2s")
		if code != 124 || !strings.Contains(stderr, "timed out after 2s (--timeout): the measurement stopped early") {
			t.Errorf("exit %d, want 124 and \"timed out\"\n%s", code, stderr)
		}
	})
}
