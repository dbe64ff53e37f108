package trace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectorCheck: each option a trace run cannot use is named as its flag.
func TestCollectorCheck(t *testing.T) {
	ok := Collector{Clock: "tsc", Repeat: 1}
	if err := ok.Check(1); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	for _, c := range []struct {
		c    Collector
		n    uint64
		want string
	}{
		{ok, 0, "--trials"},
		{Collector{Clock: "wall", Repeat: 1}, 1, `--clock "wall"`},
		{Collector{Clock: "thread", Repeat: 0}, 1, "--repeat"},
		{Collector{Clock: "monotonic", Repeat: 1, FirstRep: -1}, 1, "--first-rep"},
	} {
		err := c.c.Check(c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v, %d trials: %v, want an error naming %s", c.c, c.n, err, c.want)
		}
	}
}

// TestSummaryBudget: the warning comes once, when the first files project past
// the budget; the error when the files written reach it; no budget, no word.
func TestSummaryBudget(t *testing.T) {
	var s Summary
	if w, err := s.Budget(100, 10, 0); w != "" || err != nil {
		t.Fatalf("no budget: %q, %v", w, err)
	}
	s = Summary{}
	w, err := s.Budget(300, 10, 1000) // 300 B a run × 10 runs: 3000 B > 1000 B
	if err != nil || !strings.Contains(w, "would take about 2.93 KiB") || !strings.Contains(w, "1000 B") {
		t.Fatalf("first file: %q, %v; want the projection's warning", w, err)
	}
	if w, err := s.Budget(300, 10, 1000); w != "" || err != nil {
		t.Errorf("second file: %q, %v; want no second warning and no error", w, err)
	}
	w, err = s.Budget(400, 10, 1000) // 1000 B reached
	if w != "" || err == nil || !strings.Contains(err.Error(), "stopped after 3 of 10 runs") {
		t.Errorf("budget reached: %q, %v; want the error that stops the run", w, err)
	}
	if s.Files != 3 || s.Bytes != 1000 {
		t.Errorf("counted %d files, %d bytes; want 3, 1000", s.Files, s.Bytes)
	}
}

// TestSummaryWrite: runs, events, checkpoints, times and the runs that went wrong,
// as the trace command prints them.
func TestSummaryWrite(t *testing.T) {
	s := Summary{Reps: 2}
	run := func(exit int, times ...int64) {
		th := Thread{Time: times, Site: make([]int32, len(times)), Off: make([]int32, len(times)+1)}
		s.Add(Header{ExitCode: exit}, &Trace{Sites: []Site{{ID: 1, Name: "start"}, {ID: 2, Name: "end"}}, Threads: []Thread{th}})
	}
	run(0, 0, 1500)
	run(0, 0, 2e6)
	run(1, 10, 20, 30)
	run(0, 5, 6)
	s.Failed = 1
	var b strings.Builder
	if err := s.Write(&b, "fragprof trace: ", "out"); err != nil {
		t.Fatal(err)
	}
	want := "fragprof trace: 4 runs (2 trials × 2) → out: 9 events at 2 checkpoints (end, start); traced time 1 ns … 2 ms\n" +
		"fragprof trace: 1 trials ended badly (crash, timeout or non-zero exit); model build leaves them out\n" +
		"fragprof trace: 1 trials could not be run\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestCheckSources: each way of naming the program and the traces' directory that
// cannot run is named by its flag, in the order the trace command checks them.
func TestCheckSources(t *testing.T) {
	if err := CheckSources("", []string{"a.c"}, "outer", "out"); err != nil {
		t.Fatalf("C files, outer checkpoints, a directory: %v", err)
	}
	if err := CheckSources("./prog", nil, "", "out"); err != nil {
		t.Fatalf("a binary and a directory: %v", err)
	}
	for _, c := range []struct {
		binary    string
		files     []string
		auto, dir string
		want      string
	}{
		{"", nil, "", "out", "name the C files to build, or --binary PROG"},
		{"./prog", []string{"a.c", "b.c"}, "", "out", "--binary takes no C files (got [a.c b.c])"},
		{"", []string{"a.c"}, "inner", "out", "--auto-checkpoints=inner: want outer (the default) or all"},
		{"./prog", nil, "all", "out", "--auto-checkpoints needs the C files (it inserts checkpoints when building)"},
		{"", []string{"a.c"}, "all", "", "name the directory for the traces with -o DIR"},
		{"", nil, "inner", "", "name the C files to build, or --binary PROG"}, // the first fault is named
	} {
		err := CheckSources(c.binary, c.files, c.auto, c.dir)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q %q %q %q: %v, want %q", c.binary, c.files, c.auto, c.dir, err, c.want)
		}
	}
}

// TestSummaryTake: a trial that could not run ends the run with its own error, or
// with keepGoing is counted and printed; a trace that cannot be saved ends it with
// the saving's error.
func TestSummaryTake(t *testing.T) {
	var s Summary
	var log strings.Builder
	failed := errors.New("trial 3: the fork server died")
	if err := s.Take(&log, "fragprof trace: ", t.TempDir(), Result{Err: failed}, false, 10, 0); err != failed {
		t.Errorf("without keepGoing: %v, want the trial's own error", err)
	}
	if s.Failed != 0 || log.Len() != 0 {
		t.Errorf("without keepGoing: %d failed, log %q; want neither", s.Failed, log.String())
	}
	if err := s.Take(&log, "fragprof trace: ", t.TempDir(), Result{Err: failed}, true, 10, 0); err != nil {
		t.Errorf("with keepGoing: %v, want none", err)
	}
	if s.Failed != 1 || log.String() != "fragprof trace: trial 3: the fork server died\n" {
		t.Errorf("with keepGoing: %d failed, log %q", s.Failed, log.String())
	}
	missing := filepath.Join(t.TempDir(), "no", "such", "dir")
	err := s.Take(&log, "fragprof trace: ", missing, Result{Header: Header{Trial: 4}}, true, 10, 0)
	if err == nil || !strings.HasPrefix(err.Error(), "trace: writing "+filepath.Join(missing, RepFileName(4, 0))) {
		t.Errorf("into a missing directory: %v, want the writing's error", err)
	}
	if s.Files != 0 || s.Trials != 0 {
		t.Errorf("a trace not saved was counted: %d files, %d trials", s.Files, s.Trials)
	}
}

// TestSummaryNoCheckpoint: a run without a single event is an error naming its
// trials; one event is enough.
func TestSummaryNoCheckpoint(t *testing.T) {
	s := Summary{Trials: 7}
	err := s.NoCheckpoint()
	if err == nil || !strings.Contains(err.Error(), "no checkpoint in 7 trials") {
		t.Errorf("no events: %v", err)
	}
	s.Events = 1
	if err := s.NoCheckpoint(); err != nil {
		t.Errorf("one event: %v", err)
	}
}
