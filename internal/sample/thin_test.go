package sample

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestThinningRate: q = min(1, share·T/c) on known figures, T from the plain runs
// when there are some, else from the sampled runs less the sampler's cost, c the
// cost the sampler sees, its once-a-run part doubled, until runs of both kinds
// measure it, larger or smaller; the first run is always sampled, and a share of 0
// samples every run.
func TestThinningRate(t *testing.T) {
	th := NewThinning(0.04, 100*time.Microsecond, 1)
	if !th.Next() || th.Rate() != 1 {
		t.Fatalf("before any run: rate %g, want 1 and the first run sampled", th.Rate())
	}
	// One sampled run of 2.5 ms of CPU, 30 µs of it bursts and 10 µs mappings: T =
	// 2.5 ms − 40 µs − 100 µs = 2.36 ms, c = (100 + 10 µs) / SeenShare + 30 µs = 250
	// µs, q = 0.04·2360/250.
	th.Sampled(2500*time.Microsecond, 30*time.Microsecond, 10*time.Microsecond)
	if got, want := th.Rate(), 0.04*2360/250; math.Abs(got-want) > 1e-12 {
		t.Errorf("rate %g, want %g", got, want)
	}
	// Plain runs of 2 ms: T = 2 ms.
	th.Plain(2 * time.Millisecond)
	th.Plain(2 * time.Millisecond)
	if got, want := th.Rate(), 0.04*2000/250; math.Abs(got-want) > 1e-12 {
		t.Errorf("rate with plain runs %g, want %g", got, want)
	}
	// 20 runs of each kind: the measured cost, sampled mean − plain mean (at its
	// upper bound, here the mean itself: the runs do not vary), takes over. 20
	// sampled runs of 2.5 ms (the first above included), 20 plain runs of 2 ms: c =
	// 500 µs.
	for i := 0; i < MeasureRuns-1; i++ {
		th.Sampled(2500*time.Microsecond, 30*time.Microsecond, 10*time.Microsecond)
	}
	for i := 0; i < MeasureRuns-3; i++ {
		if _, ok := th.Measured(); ok {
			t.Fatalf("measured after %d plain runs", i+2)
		}
		th.Plain(2 * time.Millisecond)
	}
	th.Plain(2 * time.Millisecond)
	if m, ok := th.Measured(); !ok || m != 500*time.Microsecond {
		t.Errorf("measured cost %v (%v), want 500µs", m, ok)
	}
	if got, want := th.Rate(), 0.04*2000/500; math.Abs(got-want) > 1e-12 {
		t.Errorf("rate with the measured cost %g, want %g", got, want)
	}
	// A measured cost below the one seen: 20 runs of each kind, 2.1 ms sampled, 2 ms
	// plain, c = 100 µs, not the 250 µs seen.
	low := NewThinning(0.04, 100*time.Microsecond, 1)
	for i := 0; i < MeasureRuns; i++ {
		low.Sampled(2100*time.Microsecond, 30*time.Microsecond, 10*time.Microsecond)
		low.Plain(2 * time.Millisecond)
	}
	if got, want := low.Rate(), 0.04*2000/100; math.Abs(got-want) > 1e-12 {
		t.Errorf("rate with a measured cost below the seen %g, want %g", got, want)
	}
	// Long runs: q = 1 when the bursts leave room for the start.
	long := NewThinning(0.04, 100*time.Microsecond, 1)
	long.Sampled(300*time.Millisecond, 3*time.Millisecond, 200*time.Microsecond)
	if long.Rate() != 1 {
		t.Errorf("runs of 0.3 s: rate %g, want 1", long.Rate())
	}
	// Bursts that fill the share: only the start is over it, and almost every run
	// is sampled. T = 312 − 12 − 0.2 − 0.1 ms, c = 0.3 ms / SeenShare + 12 ms.
	full := NewThinning(0.04, 100*time.Microsecond, 1)
	full.Sampled(312*time.Millisecond, 12*time.Millisecond, 200*time.Microsecond)
	if got, want := full.Rate(), 0.04*299.7/12.6; math.Abs(got-want) > 1e-12 {
		t.Errorf("runs of 0.3 s with the bursts at the share: rate %g, want %g", got, want)
	}
	// No budget: every run.
	all := NewThinning(0, 100*time.Microsecond, 1)
	all.Sampled(time.Millisecond, 0, 0)
	if all.Rate() != 1 {
		t.Errorf("share 0: rate %g, want 1", all.Rate())
	}
	// The draws: about q of 10,000 runs are sampled, the same ones for one seed.
	count := func(seed uint64) (n int, first []bool) {
		d := NewThinning(0.04, 100*time.Microsecond, seed)
		d.Sampled(2500*time.Microsecond, 30*time.Microsecond, 10*time.Microsecond)
		for i := 0; i < 10000; i++ {
			ok := d.Next()
			if ok {
				n++
			}
			if i < 50 {
				first = append(first, ok)
			}
		}
		return n, first
	}
	n, a := count(5)
	_, b := count(5)
	q := 0.04 * 2360 / 250
	if sd := math.Sqrt(10000 * q * (1 - q)); math.Abs(float64(n)-10000*q) > 4*sd {
		t.Errorf("%d of 10,000 runs sampled, want about %.0f", n, 10000*q)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 5 drew differently at run %d", i)
		}
	}
}

// TestMeasuredBound: the upper bound d + t₀.₉₅(ν)·√(s²_S/n_S + s²_P/n_P) on runs of
// known spread, worked by hand: 20 sampled runs of 2.4 and 2.6 ms in turn and 20
// plain runs of 1.9 and 2.1 ms: d = 0.5 ms, each group's sample variance
// 20·(0.1 ms)²/19, so the standard error is √(2·(0.1 ms)²/19) = 32.444 µs; equal
// variances and sizes give ν = 2·19 = 38 degrees of freedom, t₀.₉₅(38) = 1.685954
// (Student's t table), and the bound is 554.700 µs; and the rate follows the bound,
// not d.
func TestMeasuredBound(t *testing.T) {
	th := NewThinning(0.04, 100*time.Microsecond, 1)
	for i := 0; i < MeasureRuns; i++ {
		off := time.Duration(1-2*(i%2)) * 100 * time.Microsecond
		th.Sampled(2500*time.Microsecond+off, 30*time.Microsecond, 10*time.Microsecond)
		th.Plain(2*time.Millisecond + off)
	}
	if d, _ := th.Measured(); d != 500*time.Microsecond {
		t.Fatalf("measured %v, want 500µs", d)
	}
	se := math.Sqrt(2*1e-8/19) * 1e6 // µs
	want := 500 + 1.685954*se
	b, ok := th.MeasuredBound()
	if got := float64(b) / 1e3; !ok || math.Abs(got-want) > 0.002 || math.Abs(want-554.700) > 0.001 {
		t.Errorf("bound %v (%v), want %.3f µs", b, ok, want)
	}
	if got, want := th.Rate(), 0.04*2000/(float64(b)/1e3); math.Abs(got-want) > 1e-12 {
		t.Errorf("rate %g, want %g", got, want)
	}
}

// TestMeasuredBoundCoverage: the one-sided 95% bound covers the true cost in about
// 95% of 4,000 simulated workloads of MeasureRuns and of 200 runs of each kind, with
// run times that scatter as CPU times do (skewed to the right: a floor plus an
// exponential delay, of different scales in the two groups). The skew takes a
// little from the coverage at 20 runs.
func TestMeasuredBoundCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	run := func(floor, scale float64) time.Duration {
		return time.Duration((floor + scale*rng.ExpFloat64()) * 1e3) // µs → ns
	}
	for _, n := range []int{MeasureRuns, 200} {
		covered, width := 0, 0.0
		const trials = 4000
		for k := 0; k < trials; k++ {
			th := NewThinning(0.04, 0, 1)
			for i := 0; i < n; i++ {
				th.Sampled(run(2300, 300), 0, 0) // mean 2,600 µs
				th.Plain(run(1900, 200))         // mean 2,100 µs
			}
			b, ok := th.MeasuredBound()
			if !ok {
				t.Fatal("no bound")
			}
			if b >= 500*time.Microsecond {
				covered++
			}
			d, _ := th.Measured()
			width += float64(b-d) / 1e3
		}
		cov := float64(covered) / trials
		t.Logf("n = %d: coverage %.3f, mean bound − d %.1f µs", n, cov, width/trials)
		if cov < 0.91 || cov > 0.97 {
			t.Errorf("n = %d: the 95%% bound covered the true cost in %.1f%% of %d workloads", n, 100*cov, trials)
		}
	}
}
