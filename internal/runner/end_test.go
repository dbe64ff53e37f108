package runner

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEndNote: the note under count's report says how the run ended, with the
// fault's place, the timeout or fragprof's own interruption first, and nothing
// after an exit with status 0.
func TestEndNote(t *testing.T) {
	sigint := Interruption{Signal: syscall.SIGINT, Mark: "interrupted"}
	for _, c := range []struct {
		st    Status
		intr  Interruption
		where string
		want  string
	}{
		{Status{}, Interruption{}, "", ""},
		{Status{Code: 3}, Interruption{}, "", "the program exited with status 3 (fragprof exits with it too)"},
		{Status{Code: -1, Signal: syscall.SIGSEGV}, Interruption{}, "in f at x.c:4 (a null pointer)",
			"the program was killed by SIGSEGV (segmentation fault) in f at x.c:4 (a null pointer); the counts are those up to that moment"},
		{Status{Code: -1, Signal: syscall.SIGTERM, TimedOut: true}, Interruption{}, "",
			"timed out: the program ran past --timeout 2s, was stopped with SIGTERM and was killed by SIGTERM (terminated); the counts are those up to that moment"},
		{Status{Code: -1, Signal: syscall.SIGINT}, sigint, "",
			"interrupted (SIGINT): the program was killed by SIGINT (interrupt); the counts are those up to that moment"},
		{Status{}, sigint, "", "interrupted (SIGINT): the program ended; the counts are those up to that moment"},
	} {
		if got := c.st.EndNote(2*time.Second, c.intr, c.where); got != c.want {
			t.Errorf("%+v, %+v: note %q, want %q", c.st, c.intr, got, c.want)
		}
	}
}

// TestEndCode: fragprof exits with the program's status as a shell reports it,
// 124 after a timeout, and 128 + the signal it caught itself before either.
func TestEndCode(t *testing.T) {
	for _, c := range []struct {
		st   Status
		intr syscall.Signal
		want int
	}{
		{Status{}, 0, 0},
		{Status{Code: 7}, 0, 7},
		{Status{Code: -1, Signal: syscall.SIGABRT}, 0, 134},
		{Status{Code: -1, Signal: syscall.SIGTERM, TimedOut: true}, 0, 124},
		{Status{Code: -1, Signal: syscall.SIGTERM, TimedOut: true}, syscall.SIGINT, 130},
		{Status{Code: 0}, syscall.SIGTERM, 143},
	} {
		if got := c.st.EndCode(Interruption{Signal: c.intr}); got != c.want {
			t.Errorf("%+v, caught %v: exit status %d, want %d", c.st, c.intr, got, c.want)
		}
	}
}

// TestWarnings: a warning for each kind of counts left out, in order, naming the
// wait that the lingering processes outlived and the lost process's cause.
func TestWarnings(t *testing.T) {
	if ws := (Status{}).Warnings("/tmp/x/run", 0); len(ws) != 0 {
		t.Errorf("a whole run: warnings %q", ws)
	}
	st := Status{Lingering: true, Vanished: 2, NLost: 1, Lost: Loss{Pid: 42, Errno: syscall.ENOSPC}}
	ws := st.Warnings("/tmp/x/run", 0)
	if len(ws) != 3 {
		t.Fatalf("warnings %q, want 3", ws)
	}
	for i, want := range []string{"still running 10s after it ended", "2 forked process(es)", "1 process(es) of the program wrote no counts, so theirs are not included (process 42: the file system of /tmp/x, where"} {
		if !strings.Contains(ws[i], want) {
			t.Errorf("warning %d %q does not say %q", i, ws[i], want)
		}
	}
	if ws := (Status{Lingering: true}).Warnings("", syscall.SIGINT); len(ws) != 1 || !strings.Contains(ws[0], "still running 1s after the SIGINT") {
		t.Errorf("lingering after a Ctrl-C: %q", ws)
	}
}
