package sample

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestLazyCost: the cost is read at the first call that succeeds, and kept.
func TestLazyCost(t *testing.T) {
	reads := 0
	fail := true
	l := &LazyCost{Read: func() (StartCostResult, error) {
		reads++
		if fail {
			return StartCostResult{}, errors.New("no cache directory")
		}
		return StartCostResult{Cost: 90 * time.Microsecond, OK: true}, nil
	}}
	if _, err := l.Get(); err == nil || l.Done() {
		t.Errorf("a read that failed: err %v, done %v", err, l.Done())
	}
	fail = false
	for i := 0; i < 2; i++ {
		if r, err := l.Get(); err != nil || r.Cost != 90*time.Microsecond || !l.Done() {
			t.Errorf("call %d: %+v, %v, done %v", i+2, r, err, l.Done())
		}
	}
	if reads != 2 {
		t.Errorf("%d reads, want 2 (the failure, then one)", reads)
	}
}

// TestWholeCost: the estimate adds to the bursts and the mappings the library's
// start in each in-process run, fragprof's own CPU time and exit, and what the
// other commands it ran took beyond the program's runs, over the program's own CPU
// time (the runs' less the sampler's part).
func TestWholeCost(t *testing.T) {
	ms := time.Millisecond
	res := &Result{
		Total:         Stats{Batches: 10, SelfCost: ms, SetupCost: 100 * time.Microsecond, CPU: 100 * ms},
		InProcessRuns: 2,
		Traced:        []PlainRun{{CPU: 60 * ms}, {CPU: 30 * ms}},
		Plain:         []PlainRun{{CPU: 10 * ms}},
	}
	c := Costs{Start: StartCostResult{Cost: 100 * time.Microsecond, OK: true, File: "/c/startcost-x"}, Exit: StartCostResult{Cost: 5 * ms}, Self: 20 * ms, Children: 110 * ms}
	// In the program 1 + 0.1 + 2 × 0.1 = 1.3 ms; fragprof 20 + 5 ms; the other
	// commands 110 − (60 + 30 + 10) = 10 ms; the program 100 − 1.3 = 98.7 ms:
	// 36.3 / 98.7 = 36.78 %.
	want := "cost (estimate): in the program 1.3ms (bursts 1ms, 10 of 100 µs CPU each; the mappings 100µs; its start 200µs in 2 run(s), 100 µs a run, measured on true(1) once on this machine (/c/startcost-x)); fragprof itself 25ms (its exit 5ms of it) and the commands it ran 10ms: 36.78% over the program's own CPU time (98.7ms)"
	if got := res.WholeCost(c); got != want {
		t.Errorf("cost:\n%s\nwant:\n%s", got, want)
	}
	c.Start.Measured = true
	if got := res.WholeCost(c); !strings.Contains(got, "100 µs a run, measured now on true(1) and kept in /c/startcost-x") {
		t.Errorf("a start measured now: %s", got)
	}
	c.Start = StartCostResult{}
	if got := res.WholeCost(c); !strings.Contains(got, "its start 0s in 2 run(s), not measured") {
		t.Errorf("no start cost: %s", got)
	}
}

// TestReport: the report of runs under ptrace: the totals with the median run's
// wall time, the tracer's time per burst, no estimate of the whole cost (not asked
// for), the target of --until-similarity not reached, and the notes of the session
// and of its last run.
func TestReport(t *testing.T) {
	ms := time.Millisecond
	res := &Result{
		Total:   Stats{Batches: 4, Sampled: 100, Skipped: 1, Ticks: 5, TickTime: 400 * time.Microsecond},
		Last:    &Stats{Notes: []string{"process 12 forked 13"}},
		Traced:  []PlainRun{{Wall: ms}, {Wall: 3 * ms}, {Wall: 2 * ms}},
		Notes:   []string{"run 1: a note"},
		Batches: 4,
		until:   0.9, untilText: "90%",
	}
	var b strings.Builder
	err := res.Report(&b, "x.batches", func() (Costs, error) {
		t.Errorf("the cost was asked for under ptrace")
		return Costs{}, nil
	})
	want := `fragprof sample: 4 batches, 100 PCs sampled (1 bursts skipped) in 3 run(s), 2ms per run (median)
fragprof sample: share of instructions: run 'fragprof hotcfg x.batches --compare EXACT' (sampled_fraction) against 'sample --exact'
fragprof sample: sampler time 400µs in 5 ticks (100 µs per burst; the program's cost is larger: --measure-overhead)
fragprof sample: --until-similarity 90% not reached in 3 runs (4 batches): raise --repeat
fragprof sample: run 1: a note
fragprof sample: process 12 forked 13
`
	if err != nil || b.String() != want {
		t.Errorf("report (%v):\n%s\nwant:\n%s", err, b.String(), want)
	}
	// In process the cost is asked for, and its failure is the report's.
	res.Total.Ticks, res.InProcessRuns = 0, 1
	failed := errors.New("no cache directory")
	if err := res.Report(&b, "x.batches", func() (Costs, error) { return Costs{}, failed }); err != failed {
		t.Errorf("a cost that could not be read: %v", err)
	}
}
