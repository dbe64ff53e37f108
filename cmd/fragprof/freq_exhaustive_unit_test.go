package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/montecarlo"
)

// TestMembersText: the progress line of an exhaustive run counts the failed
// members as run, and projects the time left at the rate so far: 300 of 1,200
// members in 6 s is 50/s, 18 s for the 900 left.
func TestMembersText(t *testing.T) {
	got := membersText(montecarlo.Progress{Trials: 298, Failed: 2, Elapsed: 6 * time.Second}, 1200)
	want := "fragprof freq: 300/1200 members run (25.0 %), 50/s, 2 failed, ~18s left"
	if got != want {
		t.Errorf("progress line\n got %q\nwant %q", got, want)
	}
	if s := membersText(montecarlo.Progress{Trials: 1200, Elapsed: time.Second}, 1200); strings.Contains(s, "left") {
		t.Errorf("all run: %q", s)
	}
	var log bytes.Buffer
	p := newMembersProgress(&log, 10)
	p.last = time.Now().Add(-time.Minute) // a log's line is due
	p.show(montecarlo.Progress{Trials: 5, Elapsed: time.Second})
	p.show(montecarlo.Progress{Trials: 6, Elapsed: time.Second}) // not due for 30 s
	if log.String() != "fragprof freq: 5/10 members run (50.0 %), 5/s, ~1s left\n" {
		t.Errorf("a log's progress: %q", log.String())
	}
}
