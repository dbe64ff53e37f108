package montecarlo

import "testing"

// TestExplain: each end of a run is worded for what it means to the estimates, and
// an end none of the cases covers is left as the run said it.
func TestExplain(t *testing.T) {
	for _, c := range []struct {
		name         string
		r            Result
		cfg          Config
		members, pop uint64
		interrupted  bool
		want         string
	}{
		{"exhaustive shard", Result{Stopped: "budget"}, Config{Shard: 1, Shards: 3, MaxTrials: 4}, 10, 10, false,
			"shard 1/3 of an exhaustive run: 4 of the population's 10 members (trials 1, 4, ... below 10); the 3 shards' profiles merged are the exact answer"},
		{"exhaustive shard interrupted", Result{Stopped: "interrupted"}, Config{Shard: 1, Shards: 3, MaxTrials: 4}, 10, 10, true,
			"shard 1/3: interrupted (the stopping rule judged this shard alone)"},
		{"shard", Result{Stopped: "every block decided"}, Config{Shard: 0, Shards: 2}, 0, 0, false,
			"shard 0/2: every block decided (the stopping rule judged this shard alone)"},
		{"finite population", Result{Stopped: "x", Trials: 8, Converged: true}, Config{}, 0, 8, false,
			"every block decided: each of the population's 8 items drawn once, the estimates are exact"},
		{"exhaustive", Result{Stopped: "x", Trials: 8, Converged: true}, Config{Shards: 1}, 8, 8, false,
			"exhaustive run: each of the population's 8 items drawn once, the estimates are exact"},
		{"finite with failures", Result{Stopped: "x", Trials: 6, Failures: make([]Failure, 2)}, Config{}, 0, 8, false,
			"each of the population's 8 items drawn once, but 2 trials failed: the estimates are of the others, not exact"},
		{"finite, not all drawn", Result{Stopped: "budget", Trials: 5, Failures: make([]Failure, 2)}, Config{}, 0, 8, false, "budget"},
		{"finite, not converged", Result{Stopped: "budget", Trials: 8}, Config{}, 0, 8, false, "budget"},
		{"infinite", Result{Stopped: "every block decided", Trials: 8, Converged: true}, Config{}, 0, 0, false, "every block decided"},
	} {
		c.r.Explain(c.cfg, c.members, c.pop, c.interrupted)
		if c.r.Stopped != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.r.Stopped, c.want)
		}
	}
}
