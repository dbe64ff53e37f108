package lab

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFiniteCoverage is the laboratory of finite populations in short: the
// default rule, made for the population as freq makes it for a corpus, run to
// its stopping point on draws without replacement, must cover the population's
// mean in at least γ − 0.01 of 600 replications, and stop before n = N on
// average (else the coverage would be 1 by construction). The worlds: blocks that
// run at most once per member in a share p of them (judged by the hypergeometric
// interval), a loop of uniform trip count (the t interval with its correction) and
// a heavy-tailed trip count ⌊e^X⌋, X ~ N(2, 1.5²) (mostly the confidence sequence
// the skewness guard falls back on, without the correction: stopping.CLT), at
// precisions where the correction is what stops the run early: at ±0.02 a share of 0.1 needs about 1,130 draws
// with replacement, n0/(1 + n0/N) = 722 of N = 2,000 without.
//
// Tolerance: the rules' intervals are conservative (the hypergeometric one
// exactly so; the others at 1 − α/2 with the extra trial at the largest count);
// with R = 600 the sd of a coverage of 0.97 is 0.007, so γ − 0.01 = 0.94 lies 4 sd
// below it. The seeds are fixed, so the test is deterministic.
func TestFiniteCoverage(t *testing.T) {
	const gamma = 0.95
	rng := rand.New(rand.NewPCG(3, 4))
	share := func(n int, p float64) []uint64 {
		pop := make([]uint64, n)
		for i := range int(math.Round(p * float64(n))) {
			pop[i] = 1
		}
		return pop
	}
	uniform := make([]uint64, 1000)
	heavy := make([]uint64, 3000)
	for i := range uniform {
		uniform[i] = 1 + uint64(rng.IntN(100))
	}
	for i := range heavy {
		heavy[i] = uint64(math.Floor(math.Exp(2 + 1.5*rng.NormFloat64())))
	}
	for _, tc := range []struct {
		name string
		pop  []uint64
		eps  float64 // relative to the mean
		// early: the run must stop before N on average (the skewed worlds are
		// judged by the confidence sequence, without the correction).
		early bool
	}{
		{"share 0.1 of 2000", share(2000, 0.1), 0.2, true},
		{"share 0.5 of 2000", share(2000, 0.5), 0.06, true},
		{"share 0.3 of 300", share(300, 0.3), 0.15, true},
		{"uniform 1..100, 1000", uniform, 0.04, true},
		{"e^N(2,1.5²), 3000", heavy, 0.2, false},
	} {
		w := Population(tc.name, "finite", tc.pop, 0)
		w.Eps = tc.eps * w.Mean
		res, err := Finite("clt", tc.pop, w, gamma, Config{R: 600, Seed: 2026})
		if err != nil {
			t.Fatal(err)
		}
		n := float64(len(tc.pop))
		t.Logf("%-22s mean %8.4g ±%g: coverage %.3f [%.3f, %.3f], trials %6.0f of %4.0f (%.0f %%) %v",
			tc.name, w.Mean, w.Eps, res.Coverage, res.CovLo, res.CovHi, res.MeanTrials, n, 100*res.MeanTrials/n, res.States)
		if res.Coverage < gamma-0.01 {
			t.Errorf("%s: coverage %.3f < γ − 0.01", tc.name, res.Coverage)
		}
		if tc.early && res.MeanTrials > 0.9*n {
			t.Errorf("%s: %.0f trials of N = %.0f: the run does not stop early", tc.name, res.MeanTrials, n)
		}
	}
}
