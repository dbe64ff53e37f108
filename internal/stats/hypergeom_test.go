package stats

import (
	"math"
	"math/big"
	"testing"
)

// TestHypergeometricByHand: N = 10, n = 5, k = 0 at γ = 0.95. P_K(X = 0) =
// C(10 − K, 5)/C(10, 5) is 126/252, 56/252, 21/252, 6/252 for K = 1 … 4; the last
// is below α/2 = 0.025, so K_U = 3 and the interval is [0, 0.3]; by symmetry
// k = 5 gives [0.7, 1]. At n = N the interval is the share itself; n = 0 says
// nothing; N = 0 (no population) is Clopper–Pearson.
func TestHypergeometricByHand(t *testing.T) {
	for _, tc := range []struct {
		k, n, N uint64
		lo, hi  float64
	}{
		{0, 5, 10, 0, 0.3},
		{5, 5, 10, 0.7, 1},
		{3, 10, 10, 0.3, 0.3}, // n = N: the share itself
	} {
		lo, hi := Hypergeometric(tc.k, tc.n, tc.N, 0.95)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("Hypergeometric(%d, %d, %d) = [%g, %g], want [%g, %g]", tc.k, tc.n, tc.N, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := Hypergeometric(1, 0, 10, 0.95); lo != 0 || hi != 1 {
		t.Errorf("n = 0: [%g, %g]", lo, hi)
	}
	clo, chi := ClopperPearson(3, 20, 0.95)
	if lo, hi := Hypergeometric(3, 20, 0, 0.95); lo != clo || hi != chi {
		t.Errorf("N = 0: [%g, %g], want Clopper–Pearson's [%g, %g]", lo, hi, clo, chi)
	}
}

// exactHyper returns P_K(X = x) for x = 0 … n in exact rationals.
func exactHyper(n, N, K int64) []*big.Rat {
	total := new(big.Int).Binomial(N, n)
	p := make([]*big.Rat, n+1)
	for x := int64(0); x <= n; x++ {
		p[x] = new(big.Rat)
		if x > K || n-x > N-K {
			continue
		}
		num := new(big.Int).Mul(new(big.Int).Binomial(K, x), new(big.Int).Binomial(N-K, n-x))
		p[x].SetFrac(num, total)
	}
	return p
}

// TestHypergeometricExact compares the interval with its definition evaluated in
// exact rational arithmetic for every k ≤ n ≤ N ≤ 24 at two confidences, and
// checks the exact coverage: for every K, the probability that the interval of
// X ~ Hypergeometric(N, K, n) contains K/N is at least γ.
func TestHypergeometricExact(t *testing.T) {
	for _, gamma := range []float64{0.95, 0.99} {
		a := new(big.Rat).SetFloat64((1 - gamma) / 2)
		for N := int64(1); N <= 24; N++ {
			pmf := make([][][]*big.Rat, N+1) // pmf[n][K][x]
			for n := int64(1); n <= N; n++ {
				pmf[n] = make([][]*big.Rat, N+1)
				for K := int64(0); K <= N; K++ {
					pmf[n][K] = exactHyper(n, N, K)
				}
			}
			for n := int64(1); n <= N; n++ {
				kl, ku := make([]int64, n+1), make([]int64, n+1)
				for k := int64(0); k <= n; k++ {
					kl[k], ku[k] = -1, -1
					for K := int64(0); K <= N; K++ {
						ge, le := new(big.Rat), new(big.Rat)
						for x, p := range pmf[n][K] {
							if int64(x) >= k {
								ge.Add(ge, p)
							}
							if int64(x) <= k {
								le.Add(le, p)
							}
						}
						if kl[k] < 0 && ge.Cmp(a) > 0 && (k == 0 || K >= k) {
							kl[k] = K
						}
						if le.Cmp(a) > 0 && K <= N-n+k {
							ku[k] = K
						}
					}
					lo, hi := Hypergeometric(uint64(k), uint64(n), uint64(N), gamma)
					if lo != float64(kl[k])/float64(N) || hi != float64(ku[k])/float64(N) {
						t.Fatalf("γ = %g, N = %d, n = %d, k = %d: [%g, %g], want K in [%d, %d]", gamma, N, n, k, lo, hi, kl[k], ku[k])
					}
				}
				for K := int64(0); K <= N; K++ {
					cov := new(big.Rat)
					for k := int64(0); k <= n; k++ {
						if kl[k] <= K && K <= ku[k] {
							cov.Add(cov, pmf[n][K][k])
						}
					}
					if c, _ := cov.Float64(); c < gamma {
						t.Fatalf("γ = %g, N = %d, n = %d, K = %d: coverage %g", gamma, N, n, K, c)
					}
				}
			}
		}
	}
}

// TestHypergeometricLarge: on large populations the interval is close to
// Clopper–Pearson's when n ≪ N (N = 10⁷, n = 100, k = 5: within 10⁻³ of
// [0.01643, 0.11284]), about √(1 − n/N) as wide when n is a fair share of N, and
// covers the share it was observed at; the sums stay finite far into the tails.
func TestHypergeometricLarge(t *testing.T) {
	clo, chi := ClopperPearson(5, 100, 0.95)
	lo, hi := Hypergeometric(5, 100, 10_000_000, 0.95)
	if math.Abs(lo-clo) > 1e-3 || math.Abs(hi-chi) > 1e-3 {
		t.Errorf("N = 10⁷: [%g, %g], Clopper–Pearson [%g, %g]", lo, hi, clo, chi)
	}
	for _, tc := range []struct{ k, n, N uint64 }{
		{500, 5000, 10000}, {2500, 5000, 10000}, {1, 9000, 10000}, {8999, 9000, 10000},
		{150, 750, 1000}, {0, 999, 1000}, {30, 300, 100000},
	} {
		lo, hi := Hypergeometric(tc.k, tc.n, tc.N, 0.95)
		clo, chi := ClopperPearson(tc.k, tc.n, 0.95)
		p := float64(tc.k) / float64(tc.n)
		ratio := (hi - lo) / ((chi - clo) * math.Sqrt(1-float64(tc.n)/float64(tc.N)))
		if !(lo <= p && p <= hi) || math.IsNaN(ratio) || ratio > 1.25 || (tc.n < tc.N*9/10 && ratio < 0.8) {
			t.Errorf("Hypergeometric(%d, %d, %d) = [%g, %g]; Clopper–Pearson [%g, %g], width ratio to its √(1 − n/N) %g", tc.k, tc.n, tc.N, lo, hi, clo, chi, ratio)
		}
	}
}

// TestHypergeometricCache: remembered intervals are the computed ones, also when
// Clopper–Pearson intervals of the same (k, n, γ) share the cache.
func TestHypergeometricCache(t *testing.T) {
	for pass := range 2 {
		for n := uint64(1); n <= 120; n++ {
			for k := uint64(0); k <= n; k += 3 {
				lo, hi := Hypergeometric(k, n, 150, 0.95)
				wlo, whi := hypergeometric(k, n, 150, 0.95)
				clo, chi := ClopperPearson(k, n, 0.95)
				wclo, wchi := clopperPearson(k, n, 0.95)
				if lo != wlo || hi != whi || clo != wclo || chi != wchi {
					t.Fatalf("pass %d, k = %d, n = %d: cached [%v, %v] [%v, %v], computed [%v, %v] [%v, %v]", pass, k, n, lo, hi, clo, chi, wlo, whi, wclo, wchi)
				}
			}
		}
	}
}
