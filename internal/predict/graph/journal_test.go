package graph

import (
	"fmt"
	"testing"

	"github.com/fragprof/fragprof/internal/trace"
)

// TestInputPoints: repetitions join the point of their trial's first run.
func TestInputPoints(t *testing.T) {
	var ts []*trace.Trace
	for _, h := range []struct {
		seed, trial uint64
		rep         int
	}{{1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {2, 0, 0}, {1, 1, 2}, {2, 0, 1}, {1, 5, 1}, {1, 0, 0}} {
		tr := &trace.Trace{}
		tr.Header.Seed, tr.Header.Trial, tr.Header.Rep = h.seed, h.trial, h.rep
		ts = append(ts, tr)
	}
	got := fmt.Sprint(InputPoints(ts))
	// The last: a second repetition 0 of trial 0 (two trace directories of one
	// seed put together) starts a point of its own.
	if want := "[0 0 1 2 1 2 3 4]"; got != want {
		t.Errorf("points %s, want %s", got, want)
	}
}
