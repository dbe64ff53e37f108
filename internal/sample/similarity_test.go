package sample

import (
	"testing"
)

// TestUntilStops: --until-similarity stops at two checks in a row at the target, with
// at least 1,000 batches and at least one batch per estimated hot edge.
func TestUntilStops(t *testing.T) {
	for _, c := range []struct {
		reached, batches, hot int
		want                  bool
	}{
		{2, 1000, 40, true},    // a small hot set: the floor of 1,000 batches
		{2, 999, 40, false},    // below it
		{1, 5000, 40, false},   // one check at the target is not two
		{2, 1199, 2842, false}, // a stop of sqlite3 at 88.1% true similarity
		{2, 2842, 2842, true},  // one batch per hot edge
		{3, 3662, 3029, true},
	} {
		if got := untilStops(c.reached, c.batches, c.hot); got != c.want {
			t.Errorf("untilStops(%d checks, %d batches, %d hot edges) = %v, want %v", c.reached, c.batches, c.hot, got, c.want)
		}
	}
}
