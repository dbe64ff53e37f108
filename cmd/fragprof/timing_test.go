//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// runJSON runs a command in-process with --json -o FILE and decodes the report.
func runJSON(t *testing.T, v any, args ...string) (int, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	code := run(append(args, "--json", "-o", out), strings.NewReader(""), &stdout, &stderr)
	if code == 0 {
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
	}
	return code, stderr.String()
}

// TestTimeLab runs the example of 'fragprof time --help' (fewer repetitions) and
// checks the JSON: the timer, repetitions, warm-up, overhead and each fragment's
// figures, a histogram that holds every kept sample, and the nesting: region:sort
// encloses func:bubble_sort in every run, so its fastest run cannot be
// faster (the tail cut removes slow samples only, so the minima are those of all
// runs after the warm-up).
func TestTimeLab(t *testing.T) {
	var r report.JSONTime
	code, stderr := runJSON(t, &r, "time", "../../examples/lab.c", "--fragment", "func:bubble_sort", "--fragment", "region:sort",
		"--input", "a = array(1000, uniform_int(0, 1e6))", "--timer", "tsc", "--reps", "40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r.Timer != "tsc" || r.Reps != 40 || r.Warmup != 1 || r.OverheadNs <= 0 || len(r.Fragments) != 2 {
		t.Fatalf("report: timer %q reps %d warmup %d overhead %g fragments %d", r.Timer, r.Reps, r.Warmup, r.OverheadNs, len(r.Fragments))
	}
	byName := map[string]report.JSONFragment{}
	for _, f := range r.Fragments {
		byName[f.Name] = f
		if f.N+f.Cut != 39 || len(f.CutNs) != f.Cut || len(f.WarmupNs) != 1 {
			t.Errorf("%s: %d kept + %d cut (%d listed), %d warm-up; want 39 after one warm-up", f.Name, f.N, f.Cut, len(f.CutNs), len(f.WarmupNs))
		}
		if f.Mean == nil || f.Median == nil || f.StdDev == nil || f.HalfWidth == nil || f.Min == nil || f.Max == nil {
			t.Fatalf("%s: missing figures: %+v", f.Name, f)
		}
		sum := 0
		for _, c := range f.Histogram.Counts {
			sum += c
		}
		if sum != f.N || len(f.Histogram.Edges) != len(f.Histogram.Counts)+1 {
			t.Errorf("%s: histogram holds %d of %d samples", f.Name, sum, f.N)
		}
		if f.Normality.Test != "Shapiro-Wilk" || f.Normality.P == nil {
			t.Errorf("%s: normality %+v", f.Name, f.Normality)
		}
		if *f.Min > *f.Mean || *f.Mean > *f.Max {
			t.Errorf("%s: min %g, mean %g, max %g", f.Name, *f.Min, *f.Mean, *f.Max)
		}
	}
	fn, reg := byName["func:bubble_sort"], byName["region:sort"]
	if *reg.Min < *fn.Min {
		t.Errorf("region:sort (min %.0f ns) is faster than the bubble_sort it encloses (min %.0f ns)", *reg.Min, *fn.Min)
	}
}

// TestComposeLab runs the lab exercise, schemes A, B and C, in a short version: the
// computed total must lie within the measured total's interval or within 5 % of it.
// Parts and total are measured in the same repetitions and compared over the same
// ones, so the means differ by the time between the parts (the glue and the nested timers' calls, ≈ 1 µs: under 0.1 % here); 5 % leaves room
// for a machine where that is not so. The Markov chain over the
// scheme's CFG and the exact reduction describe the same repetitions with the same
// probabilities, so their means and variances agree to rounding; the manual's
// variance misses the branch and loop terms.
func TestComposeLab(t *testing.T) {
	for _, scheme := range []string{"A", "B", "C"} {
		t.Run(scheme, func(t *testing.T) {
			var r report.JSONCompose
			code, stderr := runJSON(t, &r, "compose", "../../examples/lab.c", "--scheme", scheme, "--reps", "100")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !r.Within && math.Abs(r.RelDiff) > 0.05 {
				t.Errorf("scheme %s: computed %.0f ns ± %.0f, measured %.0f ns ± %.0f: %+.2f%%", scheme,
					r.Computed, r.ComputedHalf, r.Measured, r.MeasuredHalf, 100*r.RelDiff)
			}
			if r.Markov == nil {
				t.Fatalf("no Markov composition: %s", r.MarkovError)
			}
			if d := math.Abs(r.Markov.Mean-r.Exact.Mean) / r.Exact.Mean; d > 1e-9 {
				t.Errorf("Markov mean %.6g vs reduction %.6g", r.Markov.Mean, r.Exact.Mean)
			}
			if d := math.Abs(r.Markov.StdDev-r.Exact.StdDev) / r.Exact.StdDev; d > 1e-6 {
				t.Errorf("Markov σ %.6g vs exact reduction %.6g", r.Markov.StdDev, r.Exact.StdDev)
			}
			if scheme != "A" && !(r.Manual.StdDev < r.Exact.StdDev) {
				t.Errorf("manual σ %.4g should be below the exact %.4g", r.Manual.StdDev, r.Exact.StdDev)
			}
			// The exact forms describe the measured spread of the total; the manual's
			// miss the branch's and the loop's own variance. For B the exact σ is
			// ~100 µs against the manual's ~10 µs, for C ~500 µs against ~30 µs; the
			// measured s of 99 totals is within ~20 % of the exact σ (a mixture's s
			// has a relative standard error near √((κ+2)/4N) ≲ 0.15 here), so the
			// exact σ is the nearer by a wide margin.
			if s := r.MeasuredTotal.StdDev; scheme != "A" && s != nil &&
				math.Abs(r.Exact.StdDev-*s) >= math.Abs(r.Manual.StdDev-*s) {
				t.Errorf("measured s %.4g: the exact σ %.4g should be nearer than the manual's %.4g", *s, r.Exact.StdDev, r.Manual.StdDev)
			}
			if scheme == "C" && r.Markov.Max != nil {
				t.Errorf("the loop's maximum should be unbounded, got %g", *r.Markov.Max)
			}
			t.Logf("scheme %s: computed %.1f µs, measured %.1f µs (%+.2f%%), %d of %d repetitions cut",
				scheme, r.Computed/1e3, r.Measured/1e3, 100*r.RelDiff, r.MeasuredTotal.Cut, r.MeasuredTotal.Cut+r.MeasuredTotal.N)
		})
	}
}

func TestTimersCommand(t *testing.T) {
	var r []report.JSONTimer
	code, stderr := runJSON(t, &r, "timers", "--slices", "2", "--slice-ms", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	names := []string{"tsc", "rdtscp", "monotonic", "monotonic_raw", "process", "thread"}
	if len(r) != len(names) {
		t.Fatalf("%d timers, want %d", len(r), len(names))
	}
	for i, x := range r {
		if x.Name != names[i] {
			t.Errorf("timer %d is %q, want %q", i, x.Name, names[i])
		}
		if x.Available && (x.Resolution <= 0 || x.Overhead < 0 || x.Fragment < 0) {
			t.Errorf("%s: resolution %g ns, read %g ns, empty fragment %g ns", x.Name, x.Resolution, x.Overhead, x.Fragment)
		}
	}
	if !r[2].Available || !r[3].Available {
		t.Error("CLOCK_MONOTONIC and CLOCK_MONOTONIC_RAW exist on every Linux")
	}
}

// TestTimingErrors checks that mistakes are told with their place: usage errors
// exit 2, failures 1.
func TestTimingErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"time", "../../examples/lab.c"}, 2, "at least one --fragment"},
		{[]string{"time", "../../examples/lab.c", "--fragment", "blah"}, 2, `fragment "blah": want func:NAME`},
		{[]string{"time", "../../examples/lab.c", "--fragment", "func:nosuch", "--reps", "3"}, 1, "func:nosuch: no function nosuch is defined in ../../examples/lab.c"},
		{[]string{"time", "--binary", "/bin/true", "--fragment", "func:f"}, 2, "needs fragprof to build the program"},
		{[]string{"time", "../../examples/lab.c", "--fragment", "program", "--timer", "sundial"}, 2, `unknown timer "sundial"`},
		{[]string{"time", "../../examples/lab.c", "--fragment", "program", "--reps", "1"}, 2, "--reps 1: want more than --warmup + 1"},
		{[]string{"compose", "../../examples/lab.c", "--scheme", "Z"}, 2, `unknown lab scheme "Z"`},
		{[]string{"compose", "../../examples/lab.c", "--expr", "seq(D, X)", "--part", "D=func:bubble_sort", "--total", "region:A"}, 2, "no --part X=FRAGMENT"},
		{[]string{"compose", "../../examples/lab.c", "--expr", "loop(1, D, E)", "--total", "region:A"}, 2, "column 6"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("fragprof %s: exit %d, %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr.String(), tc.code, tc.msg)
		}
	}
}
