//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// knownValues reads the "e VALUE" expectations of an example: line → exact e(b).
func knownValues(t *testing.T, path string) map[int]float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\be ([0-9.]+)\s*$`)
	out := map[int]float64{}
	for i, l := range strings.Split(string(data), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			out[i+1] = v
		}
	}
	return out
}

// blockOnLine returns the block of fn that starts first on line (as "want N" means).
func blockOnLine(fn report.JSONFreqFunc, line int) (report.JSONFreqBlock, bool) {
	best, bestCol := -1, 0
	for i, b := range fn.Blocks {
		if l, col := lineCol(b.Start); l == line && (best < 0 || col < bestCol) {
			best, bestCol = i, col
		}
	}
	if best < 0 {
		return report.JSONFreqBlock{}, false
	}
	return fn.Blocks[best], true
}

// TestFreqCoverage runs examples/known.c under many seeds and counts how often the
// interval of each converged block misses the exact e(b). The bench script
// bench/freq_coverage.sh does the same with 200 seeds.
//
// Tolerance: with 16 seeds × 4 blocks = 64 intervals at γ = 0.95, the number of
// misses is about Binomial(64, 0.05) if the intervals are right (mean 3.2); P(X ≥ 10)
// ≈ 0.0013, so more than 9 misses says the intervals are too narrow.
func TestFreqCoverage(t *testing.T) {
	const seeds = 16
	known := knownValues(t, "../../examples/known.c")
	if len(known) != 4 {
		t.Fatalf("examples/known.c states %d exact values, want 4", len(known))
	}
	misses := make(chan int, seeds)
	for s := 1; s <= seeds; s++ {
		t.Run(fmt.Sprint("seed", s), func(t *testing.T) {
			t.Parallel()
			r, code, stderr := freq(t, "../../examples/known.c", "--inputs", "../../examples/known.toml",
				"--eps", "1", "--isolation", "none", "--jobs", "1", "--seed", fmt.Sprint(s))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			miss := 0
			for line, e := range known {
				b, ok := blockOnLine(r.Functions[0], line)
				if !ok {
					t.Fatalf("no block starts on line %d", line)
				}
				if b.State != "converged" || b.HalfWidth == nil {
					t.Errorf("line %d: block %s is %s, want converged", line, b.Label, b.State)
					continue
				}
				if math.Abs(b.Mean-e) > *b.HalfWidth {
					miss++
				}
				if *b.HalfWidth > 1 {
					t.Errorf("line %d: half-width %g exceeds ε = 1", line, *b.HalfWidth)
				}
			}
			misses <- miss
		})
	}
	t.Cleanup(func() {
		close(misses)
		total := 0
		for m := range misses {
			total += m
		}
		t.Logf("%d of %d intervals missed the exact value", total, 4*seeds)
		if total > 9 {
			t.Errorf("%d of %d intervals missed the exact e(b): the coverage is below γ", total, 4*seeds)
		}
	})
}

// TestFreqReproducible checks that one seed gives the same estimates with one worker
// and with two (on a 4,000-trial budget of the rigorous FreqSys rule, which cannot
// converge before 9,017 trials: the folding order, not convergence, is under test).
func TestFreqReproducible(t *testing.T) {
	var got [2]report.JSONFreq
	for k, jobs := range []string{"1", "2"} {
		r, code, stderr := freq(t, "../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", `{ask}\n`,
			"--eps", "0.3", "--jobs", jobs, "--seed", "7", "--max-trials", "4000", "--rule", "freqsys-absolute")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r.Elapsed = 0
		got[k] = r
	}
	a, _ := json.Marshal(got[0])
	b, _ := json.Marshal(got[1])
	if !bytes.Equal(a, b) {
		t.Errorf("--jobs 1 and --jobs 2 differ:\n%s\n%s", a, b)
	}
	if got[0].Trials != 4000 || got[0].States["unconverged"] == 0 {
		t.Errorf("%d trials, states %v: the rigorous rule cannot converge before 9,017 trials", got[0].Trials, got[0].States)
	}
}

// newtonIterations replays nsqrt's loop of examples/newton.c in float64 (the same
// IEEE operations in the same order as the C code).
func newtonIterations(a float64) int {
	x, prev := a, 0.0
	n := 0
	for {
		prev = x
		x = 0.5 * (x + a/x)
		n++
		if !(prev-x > 1e-6 || x-prev > 1e-6) {
			return n
		}
	}
}

// TestFreqNewton checks FreqSys's example under the default rule and both FreqSys
// rules: the loop body's estimate covers its exact expected count, computed by
// averaging the iteration count over a fine grid of ask in [100, 800] (the count is
// piecewise constant, so a million points pin it to about 1e-5); the default rule
// stops within 100 trials.
func TestFreqNewton(t *testing.T) {
	const grid = 1_000_000
	sum := 0
	for i := 0; i < grid; i++ {
		sum += newtonIterations(100 + 700*(float64(i)+0.5)/grid)
	}
	exact := float64(sum) / grid
	for _, moment := range []string{"clt", "freqsys-absolute", "freqsys-signed"} {
		r, code, stderr := freq(t, "../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", `{ask}\n`,
			"--eps", "0.3", "--gamma", "0.95", "--rule", moment)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var nsqrt report.JSONFreqFunc
		for _, f := range r.Functions {
			if f.Name == "nsqrt" {
				nsqrt = f
			}
		}
		b, ok := blockOnLine(nsqrt, 12)
		if !ok || b.Label != "do.body" {
			t.Fatalf("no do.body on line 12")
		}
		if b.State != "converged" || math.Abs(b.Mean-exact) > *b.HalfWidth {
			t.Errorf("%s: loop body %s %g ± %v, exact %g", moment, b.State, b.Mean, b.HalfWidth, exact)
		}
		t.Logf("%s: %d trials, loop body %.4f ± %.4f (exact %.5f; FreqSys: 9.96 at trial 36)", moment, r.Trials, b.Mean, *b.HalfWidth, exact)
		if moment == "freqsys-signed" && r.Trials > 1000 {
			t.Errorf("signed moment needed %d trials; the paper's rule stops within a few dozen", r.Trials)
		}
		if moment == "clt" && (r.Trials > 100 || *b.HalfWidth > 0.3) {
			t.Errorf("default rule: %d trials, ± %g; want ≤ 100 trials and ± ≤ 0.3", r.Trials, *b.HalfWidth)
		}
	}
}

// TestFreqRare checks the rare-block case: a branch taken with probability 2^-64 is
// unseen, with the rule of three's bound on how often it runs, never converged; under
// the FreqSys rules it is constant or inadequate.
func TestFreqRare(t *testing.T) {
	for _, rule := range []string{"clt", "freqsys-absolute"} {
		r, code, stderr := freq(t, "../../examples/rare.c", "--input", "x = uniform_int(-9223372036854775808, 9223372036854775807)",
			"--stdin", `{x}\n`, "--eps", "0.01", "--isolation", "none", "--max-trials", "20000", "--rule", rule)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, ok := blockOnLine(r.Functions[0], 18) // x = 0: taken when x == 42
		if !ok {
			t.Fatal("no block on line 18")
		}
		switch rule {
		case "clt":
			// Unseen in n trials: P(run) < 1 − 0.025^{1/n} (the statement's level is
			// 1 − α/2), about 3.7/n.
			want := 1 - math.Pow(0.025, 1/float64(b.N))
			if b.State != "unseen" || b.ProbHi == nil || math.Abs(*b.ProbHi-want) > 1e-12 || b.Ran != 0 {
				t.Errorf("the rare block is %s ran %d bound %v, want unseen with bound %g", b.State, b.Ran, b.ProbHi, want)
			}
		default:
			if b.State != "constant" && b.State != "inadequate" {
				t.Errorf("FreqSys rule: the rare block is %s, want constant or inadequate", b.State)
			}
		}
	}
}

// TestFreqErrors checks the messages of bad specifications, and that trials that
// hang or crash are listed with how to replay them while the others are used.
func TestFreqErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"typo", []string{"--input", "ask = unifrom(1, 2)"}, 2, "unknown distribution 'unifrom' at 1:7 (did you mean 'uniform'?)"},
		{"unknown in template", []string{"--input", "ask = uniform(1, 2)", "--stdin", `{aks}\n`}, 2, "aks"},
		{"bad gamma", []string{"--gamma", "1.5"}, 2, "gamma"},
		{"no sources", nil, 2, "name the C files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.name != "no sources" {
				args = append([]string{"../../examples/newton.c"}, args...)
			}
			_, code, stderr := freq(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
	t.Run("hang and crash", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "flaky.c")
		os.WriteFile(src, []byte(`#include <stdio.h>
int main(void) {
  int m;
  if (scanf("%d", &m) != 1) return 2;
  if (m == 0) for (;;) ;
  if (m == 1) { volatile int *p = 0; *p = 1; }
  return 0;
}
`), 0o644)
		r, code, stderr := freq(t, src, "--input", "m = choice(0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)",
			"--stdin", `{m}\n`, "--trial-timeout", "200ms", "--n-min", "150", "--max-trials", "200", "--eps", "0.5", "--max-fail", "0.5")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if len(r.Failures) == 0 {
			t.Fatal("no failures recorded")
		}
		kinds := map[string]bool{}
		for _, f := range r.Failures {
			switch {
			case strings.Contains(f.Reason, "timed out"):
				kinds["timeout"] = true
			case strings.Contains(f.Reason, "SIGSEGV") || strings.Contains(f.Reason, "segmentation"):
				kinds["crash"] = true
			default:
				t.Errorf("trial %d: unexpected failure %q", f.Trial, f.Reason)
			}
		}
		if !kinds["timeout"] || !kinds["crash"] {
			t.Errorf("failures %v, want both a timeout and a crash", r.Failures)
		}
		// The first failure replays with the same inputs.
		var stdout, errb bytes.Buffer
		code = run([]string{"freq", src, "--input", "m = choice(0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)",
			"--stdin", `{m}\n`, "--replay", fmt.Sprint(r.Failures[0].Trial)}, strings.NewReader(""), &stdout, &errb)
		if !strings.Contains(errb.String(), fmt.Sprintf("trial %d", r.Failures[0].Trial)) || !strings.Contains(errb.String(), "inputs: m = ") {
			t.Errorf("replay output:\n%s", errb.String())
		}
		if strings.Contains(r.Failures[0].Reason, "SIGSEGV") && code != 139 {
			t.Errorf("replay of a crash exited %d, want 139", code)
		}
	})
}

// TestFreqFunction studies one function without its main: parameters bound by their
// C names, a global and an extern global drawn, the unit's own main set aside.
func TestFreqFunction(t *testing.T) {
	r, code, stderr := freq(t, "../../examples/sort.c", "--func", "insertion_sort",
		"--input", "n = uniform_int(10, 100)", "--input", "a = array(n, uniform_int(0, 1e6))",
		"--rel-eps", "0.02", "--isolation", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	known := knownValues(t, "../../examples/sort.c")
	for _, f := range r.Functions {
		if f.Name == "main" && f.Calls != 0 {
			t.Errorf("the unit's main ran %g times in function mode", f.Calls)
		}
		if f.Name != "insertion_sort" {
			continue
		}
		for line, e := range known {
			b, ok := blockOnLine(f, line)
			if !ok || b.State != "converged" || math.Abs(b.Mean-e) > *b.HalfWidth {
				t.Errorf("line %d: %+v does not cover e = %g", line, b.State, e)
			}
		}
	}

	dir := t.TempDir()
	src := filepath.Join(dir, "g.c")
	os.WriteFile(src, []byte(`static int limit;
extern double scale;
static long work(short k, const float *w, unsigned long n) {
  long s = 0;
  for (unsigned long i = 0; i < n && i < (unsigned long)limit; i++)
    if (w[i] * scale > k)
      s++;
  return s;
}
int main(void) { float w[1] = {1}; return (int)work(1, w, 1); }
`), 0o644)
	// limit = 5 caps the loop at 5 passes; w[i]·scale > k holds for every i since
	// w ≥ 10, scale = 1 and k ≤ 3: so the then-block runs min(n, 5) times, n ∈ [1, 9].
	r, code, stderr = freq(t, src, "--func", "work", "--input", "limit = 5", "--input", "scale = 1.0",
		"--input", "k = uniform_int(0, 3)", "--input", "n = uniform_int(1, 9)",
		"--input", "w = array(n, uniform(10, 20))", "--eps", "0.2", "--isolation", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// E[min(n, 5)] for n uniform on 1..9 = (1+2+3+4+5·5)/9 = 35/9.
	for _, f := range r.Functions {
		if f.Name == "work" {
			for _, b := range f.Blocks {
				if b.Label == "if.then" && (b.HalfWidth == nil || math.Abs(b.Mean-35.0/9) > *b.HalfWidth) {
					t.Errorf("if.then: %g ± %v, want 35/9", b.Mean, b.HalfWidth)
				}
			}
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing", []string{"--input", "n = 5"}, []string{"parameter 1 'a' (", "has no input"}},
		{"unknown input", []string{"--input", "n = 5", "--input", "a = array(n, 1)", "--input", "zz = 3"}, []string{"input zz is neither a parameter of insertion_sort nor a global"}},
		{"scalar for pointer", []string{"--input", "n = 5", "--input", "a = 3"}, []string{"parameter 1 'a': a pointer takes an array(...)"}},
		{"no such function", []string{"--func", "nosuch"}, []string{"no such function", "insertion_sort"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"../../examples/sort.c", "--func", "insertion_sort"}, tc.args...)
			_, code, stderr := freq(t, args...)
			for _, w := range tc.want {
				if code == 0 || !strings.Contains(stderr, w) {
					t.Errorf("exit %d, stderr %q; want it to contain %q", code, stderr, w)
				}
			}
		})
	}
}

// factorPasses replays the outer loop of examples/lab.c's factor: trial division by
// i = 2, 3, ... while i·i ≤ n, n divided by every factor found.
func factorPasses(n int64) int {
	passes := 0
	for i := int64(2); i*i <= n; i++ {
		passes++
		for n%i == 0 {
			n /= i
		}
	}
	return passes
}

// TestFreqLabFragments studies the timing guide's other fragments in function mode,
// against exact expected counts: trial division of one of the guide's three numbers
// (the mean of three known pass counts) and an m×m matrix product with m uniform on
// 2..6 (E[m³] = (8 + 27 + 64 + 125 + 216)/5 = 88 passes of the innermost body).
func TestFreqLabFragments(t *testing.T) {
	nums := []int64{909091, 1336337, 614657}
	sum := 0
	for _, n := range nums {
		sum += factorPasses(n)
	}
	for _, tc := range []struct {
		fn    string
		args  []string
		label string
		e     float64
	}{
		{"factor", []string{"--input", "n = choice(909091, 1336337, 614657)", "--input", "f = array(64, 0)"}, "for.body", float64(sum) / 3},
		{"mat_mul", []string{"--input", "m = uniform_int(2, 6)", "--input", "a = array(36, uniform(0, 1))",
			"--input", "b = array(36, uniform(0, 1))", "--input", "c = array(36, 0)"}, "for.body8", 88},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			args := append([]string{"../../examples/lab.c", "--func", tc.fn, "--rel-eps", "0.02", "--isolation", "none"}, tc.args...)
			r, code, stderr := freq(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			found := false
			for _, f := range r.Functions {
				if f.Name != tc.fn {
					continue
				}
				for _, b := range f.Blocks {
					if b.Label != tc.label {
						continue
					}
					found = true
					if b.State != "converged" || math.Abs(b.Mean-tc.e) > *b.HalfWidth {
						t.Errorf("%s %s: %s %g ± %v, exact %g", tc.fn, b.Label, b.State, b.Mean, b.HalfWidth, tc.e)
					}
				}
			}
			if !found {
				t.Fatalf("no block %s in %s", tc.label, tc.fn)
			}
		})
	}
}
