// Command binomtail judges an observed rate against a promised one: given k
// events in n independent trials and the promised rate p, it prints the exact
// one-sided binomial tail P(X ≥ k) for X ~ Binomial(n, p) — the p-value of
// "the rate is at most p" — and the two-sided 95% Clopper–Pearson interval of
// the rate. A false-alarm rate promised at most 1 − γ is exceeded, on the
// evidence, only when that tail is below 0.05: k alarms in n runs at exactly
// the promised rate exceed n·p about half the time.
//
//	go run ./bench/binomtail K N P     (prints: tail lo hi)
package main

import (
	"fmt"
	"os"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fragprof/fragprof/internal/stats"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: binomtail K N P")
		os.Exit(2)
	}
	k, err1 := strconv.ParseUint(os.Args[1], 10, 64)
	n, err2 := strconv.ParseUint(os.Args[2], 10, 64)
	p, err3 := strconv.ParseFloat(os.Args[3], 64)
	if err1 != nil || err2 != nil || err3 != nil || k > n || n == 0 || p <= 0 || p >= 1 {
		fmt.Fprintln(os.Stderr, "binomtail: want integers 0 ≤ K ≤ N, N > 0, and 0 < P < 1")
		os.Exit(2)
	}
	tail := 1.0
	if k > 0 {
		tail = 1 - distuv.Binomial{N: float64(n), P: p}.CDF(float64(k-1))
	}
	lo, hi := stats.ClopperPearson(k, n, 0.95)
	fmt.Printf("%.4f %.4f %.4f\n", tail, lo, hi)
}
