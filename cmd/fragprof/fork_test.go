//go:build integration

package main

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/report"
)

// TestForkFreq: a fork-server trial is all the processes of the program. In
// testdata/fork.c every trial forks three children (one of them execs the program
// again) and calls work 32 times in five process images; in testdata/forklate.c the
// trial's main returns at once and an orphaned grandchild calls work 20 ms later,
// 7 calls in three processes; in testdata/forkexit.c three children end by _exit,
// 4 calls. Each trial's counts are exactly those, on two workers and in-process: no
// process's counts are dropped, and none land in another trial. Before, freq
// reported 5 and 1 calls (the main process's alone), and 1 for forkexit.c.
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
		{"_exit", "testdata/forkexit.c", 4, []string{"--jobs", "2"}},
		{"_exit-in-process", "testdata/forkexit.c", 4, []string{"--isolation", "none"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "freq.json")
			args := append([]string{"freq", c.src, "--max-trials", "24", "--json", "-o", out}, c.args...)
			_, stderr, code := cli(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			r := readJSON[report.JSONFreq](t, out)
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

// TestForkTime: the fragment times of a trial are its main process's (docs/runtime.md,
// "Processes"): in testdata/forktime.c the parent times work 3 times per repetition,
// and the child and grandchild it forks, one of which outlives it, write no timing
// records. Before, the children's records (repeating the samples they inherited) were
// added to the trial's and, from a child outliving its trial, to the next trial's:
// 92 samples for 20 repetitions.
func TestForkTime(t *testing.T) {
	out := filepath.Join(t.TempDir(), "time.json")
	_, stderr, code := cli(t, "", "time", "testdata/forktime.c", "--fragment", "func:work", "--reps", "20", "--warmup", "0", "--json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := readJSON[report.JSONTime](t, out)
	if len(r.Failures) != 0 || len(r.Fragments) != 1 {
		t.Fatalf("failures %v, %d fragments; want none and 1", r.Failures, len(r.Fragments))
	}
	if f := r.Fragments[0]; f.N+f.Cut != 60 || f.PerRep != 3 {
		t.Errorf("%s: %d samples kept + %d cut, %g per repetition; want 60 in all, 3 per repetition", f.Name, f.N, f.Cut, f.PerRep)
	}
}

// TestRunIdentity: the processes of a run add their counts to one dump, and a dump
// of another run is replaced, never added to, even when the two runs' first processes
// have the same pid — as they do when each run starts in a fresh pid namespace (a
// container), where it is pid 1. testdata/fork.c, built by fragprof cc, runs twice
// so (unshare), and the dump holds one run's 32 calls of work. Before, the run was
// known by its first pid, and the second run added its counts to the first's: 64.
func TestRunIdentity(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fork")
	if _, stderr, code := cli(t, "", "cc", "testdata/fork.c", "-o", bin); code != 0 {
		t.Fatalf("cc: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(dir, "counts.fpd")
	for i := 0; i < 2; i++ {
		// -r: a user namespace, so that no privilege is needed; -p -f: the program
		// is the first process (pid 1) of a new pid namespace.
		cmd := osexec.Command("unshare", "-r", "-p", "-f", bin)
		cmd.Env = append(os.Environ(), "FRAGPROF_OUT="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("unshare -r -p -f %s: %v\n%s", bin, err, b)
		}
	}
	n, found := callsOf(readDumpProfile(t, out), "work")
	if !found {
		t.Fatal("no function work in the dump")
	}
	if n != 32 {
		t.Errorf("work called %d times, want one run's 32", n)
	}
}

// TestForkContinuous: in continuous mode the first process's counts live in the dump
// file, and its forked children and the programs they exec add theirs, at their end,
// to PATH.forks, which count adds: testdata/fork.c calls work 32 times in five process
// images, 20 of them in two children. Before, the children wrote nothing: 5 calls.
func TestForkContinuous(t *testing.T) {
	out := filepath.Join(t.TempDir(), "counts.json")
	_, stderr, code := cli(t, "", "count", "testdata/fork.c", "--continuous", "--json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	p := readJSON[report.JSONProgram](t, out)
	calls := map[string]uint64{}
	body := uint64(0)
	for _, f := range p.Functions {
		calls[f.Name] = deref(f.Calls)
		for _, b := range f.Blocks {
			if f.Name == "main" && b.Label == "for.body29" {
				body = deref(b.Count)
			}
		}
	}
	if calls["work"] != 32 || calls["main"] != 2 || body != 20 {
		t.Errorf("work called %d times, main %d, the children's loop body ran %d times; want 32, 2 and 20", calls["work"], calls["main"], body)
	}
}

// TestOutNotRegular: FRAGPROF_OUT naming something other than a regular file (a FIFO
// here; /dev/null in practice) gets the dump written to it as it is. Before, the
// runtime wrote PATH.PID.tmp and renamed it over PATH, which replaced /dev/null
// with a regular file for the whole machine.
func TestOutNotRegular(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "five.c")
	if err := os.WriteFile(src, []byte("static int work(int i) { return i * 3 + 1; }\nint main(void) {\n\tint s = 0;\n\tfor (int i = 0; i < 5; i++)\n\t\ts += work(i);\n\treturn s != 35;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "five")
	if _, stderr, code := cli(t, "", "cc", src, "-o", bin); code != 0 {
		t.Fatalf("cc: exit %d\n%s", code, stderr)
	}
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // until the program closes it
		got <- b
	}()
	cmd := osexec.Command(bin)
	cmd.Env = append(os.Environ(), "FRAGPROF_OUT="+fifo)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, b)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("%s is no longer a FIFO (%v)", fifo, err)
	}
	var data []byte
	select {
	case data = <-got:
	case <-time.After(time.Minute):
		t.Fatal("nothing was written to the FIFO")
	}
	n, found := callsOf(dumpProfile(t, fifo, data), "work")
	if !found {
		t.Fatal("no function work in the dump")
	}
	if n != 5 {
		t.Errorf("work called %d times, want 5", n)
	}
}
