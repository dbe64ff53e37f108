package stats

import (
	"math"
	"sync"
	"testing"
)

// TestClopperPearson checks the exact interval against published values.
func TestClopperPearson(t *testing.T) {
	for _, tc := range []struct {
		k, n   uint64
		gamma  float64
		lo, hi float64
	}{
		// Clopper & Pearson's own example and standard tables (e.g. Brown, Cai &
		// DasGupta 2001; R binom.test): 0/10 → [0, 0.3084971]; 1/10 → [0.002528579,
		// 0.4450161]; 5/10 → [0.1870860, 0.8129140]; 10/10 → [0.6915029, 1].
		{0, 10, 0.95, 0, 0.3084971},
		{1, 10, 0.95, 0.002528579, 0.4450161},
		{5, 10, 0.95, 0.1870860, 0.8129140},
		{10, 10, 0.95, 0.6915029, 1},
		// Solved independently by bisection on the exact binomial sums
		// P(X ≥ k | lo) = α/2 and P(X ≤ k | hi) = α/2 (Python, exact integers).
		{3, 100, 0.95, 0.006229972, 0.085176053},
		{50, 100, 0.99, 0.368861437, 0.631138563},
	} {
		lo, hi := ClopperPearson(tc.k, tc.n, tc.gamma)
		if math.Abs(lo-tc.lo) > 1e-6 || math.Abs(hi-tc.hi) > 1e-6 {
			t.Errorf("ClopperPearson(%d, %d, %g) = [%.9f, %.9f], want [%.9f, %.9f]", tc.k, tc.n, tc.gamma, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestRuleOfThree: 1 − 0.05^{1/n}, which is ≈ 3/n; at n = 100 it is 0.02951305.
func TestRuleOfThree(t *testing.T) {
	if got := RuleOfThree(100, 0.95); math.Abs(got-0.02951305) > 1e-7 {
		t.Errorf("RuleOfThree(100) = %.8f, want 0.02951305", got)
	}
	for _, n := range []uint64{1000, 1_000_000} {
		if got := RuleOfThree(n, 0.95) * float64(n); got < 2.99 || got > 3.0 {
			t.Errorf("n·RuleOfThree(%d) = %g, want ≈ 2.996", n, got)
		}
	}
	if lo, hi := RunProbability(0, 100, 0.95); lo != 0 || hi != RuleOfThree(100, 0.95) {
		t.Errorf("RunProbability(0, 100) = [%g, %g]", lo, hi)
	}
}

// TestClopperPearsonCache: the remembered intervals are the computed ones, also
// after 40,000 pairs (k, n) at two confidences have overwritten one another in
// the cache's 16,384 entries, asked for concurrently.
func TestClopperPearsonCache(t *testing.T) {
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for pass := range 2 {
				for n := uint64(1); n <= 200; n++ {
					for k := uint64(0); k <= n; k += 1 + uint64(w) {
						gamma := []float64{0.95, 0.99}[(int(k)+pass)%2]
						lo, hi := ClopperPearson(k, n, gamma)
						wlo, whi := clopperPearson(k, n, gamma)
						if lo != wlo || hi != whi {
							t.Errorf("ClopperPearson(%d, %d, %g) = [%v, %v], computed [%v, %v]", k, n, gamma, lo, hi, wlo, whi)
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
}
