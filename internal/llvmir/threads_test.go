//go:build integration

package llvmir

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

// shortCircuitC has a loop on && and a loop on ||.
const shortCircuitC = `
int f(const int *a, int n, int m) {
	int s = 0;
	for (int j = 0; j < n && j < m; j++)
		s += a[j];
	int k = 0;
	while (k < n || a[k] > 0)
		k++;
	return s + k;
}
`

// TestThreadPhi: with clang 14 and 19, the edge from each loop's first test to the
// join of its && or || (Edge.Threads) leads on to where the join's phi constant
// sends it — out of the loop for &&, into the body for || —, and the static estimate
// of the && loop's header sees its false edge leave the loop (the loop-exit
// heuristic: 0.8 against even odds).
func TestThreadPhi(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.c")
	if err := os.WriteFile(src, []byte(shortCircuitC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, clang := range []string{"clang-14", "clang-19"} {
		out, err := exec.Command(clang, "-O2", "-fno-discard-value-names", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", "-o", "-", src).Output()
		if err != nil {
			t.Fatalf("%s: %v", clang, err)
		}
		m, err := Parse(clang+".ll", out)
		if err != nil {
			t.Fatal(err)
		}
		g := m.CFG(m.Funcs[0])
		threads := map[string]string{} // "from→to" → threaded block
		for _, e := range g.Edges {
			if e.Threads != nil {
				threads[e.From.Label+"→"+e.To.Label] = e.Threads.Label
			}
		}
		want := map[string]string{"for.cond→land.end": "for.cond.cleanup", "while.cond→lor.end": "while.body"}
		for k, v := range want {
			if threads[k] != v {
				t.Errorf("%s: edge %s threads to %q, want %q (all: %v)", clang, k, threads[k], v, threads)
			}
		}
		if len(threads) != len(want) {
			t.Errorf("%s: threaded edges %v, want %v", clang, threads, want)
		}
		st := g.EstimateStatic()
		for _, e := range g.Edges {
			if e.From.Label == "for.cond" && e.To.Label == "land.rhs" {
				if st.Prob[e.ID] != cfg.HitRate[cfg.ByLoopExit] || !slices.Contains(st.Used[e.From.ID], cfg.ByLoopExit) {
					t.Errorf("%s: for.cond → land.rhs predicted %g by %v, want %g by the loop-exit heuristic", clang, st.Prob[e.ID], st.Used[e.From.ID], cfg.HitRate[cfg.ByLoopExit])
				}
			}
		}
	}
}
