package trace

import (
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
