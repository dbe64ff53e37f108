package montecarlo

import (
	"context"
	"errors"
	"testing"
)

// TestRunStartsNoIdleWorkers: a run starts no more workers than it has trials, and
// none once its context has ended (Ctrl-C while fork servers start). Before, --jobs
// 100000 with a budget of 200 trials started 100,000 fork servers, one after the
// other, whatever the signals.
func TestRunStartsNoIdleWorkers(t *testing.T) {
	c := fakeConfig(t, 100000, nil)
	c.MaxTrials = 7
	newWorker := c.NewWorker
	started := 0
	c.NewWorker = func(k int) (Worker, error) { started++; return newWorker(k) }
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if started != 7 || res.Trials != 7 {
		t.Errorf("--jobs 100000, 7 trials: %d workers started, %d trials run; want 7 and 7", started, res.Trials)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.MaxTrials = 200
	started = 0
	c.NewWorker = func(k int) (Worker, error) {
		started++
		if started == 3 {
			cancel() // the Ctrl-C arrives while the third starts
		}
		return newWorker(k)
	}
	if _, err := Run(ctx, c); err != nil && !errors.Is(err, ErrNoTrials) {
		t.Fatal(err)
	}
	if started != 3 {
		t.Errorf("cancelled while the third worker started: %d workers started, want 3", started)
	}
}
