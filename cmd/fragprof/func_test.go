//go:build integration

// Tests of what freq --func fills and what it refuses.

package main

import (
	"strings"
	"testing"
)

// TestFuncArrays2D: a 2-D array parameter (int a[][4]) and a 2-D global (int
// grid[3][4]) are filled row-major from one flat array, and a global pointer from an
// array; a struct, by value or by pointer, is refused naming its C type.
func TestFuncArrays2D(t *testing.T) {
	const src = "testdata/func2d.c"
	// a = 1 and grid = 2 everywhere: a[i][j] + grid[i][j] == 3 holds in all 3·4
	// passes (line 12), and weights[2] = 0.75 > 0.5 (line 14): exact counts, 12 and
	// 1, in every trial. Unfilled, grid and weights would be zero (and weights[2] a
	// crash).
	r, code, stderr := freq(t, src, "--func", "sum2d", "--input", "rows = 3",
		"--input", "a = array(12, 1)", "--input", "grid = array(12, 2)",
		"--input", "weights = array(3, 0.75)", "--eps", "0.5", "--isolation", "none", "--max-trials", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	found := false
	for _, f := range r.Functions {
		if f.Name != "sum2d" {
			continue
		}
		found = true
		for line, want := range map[int]float64{12: 12, 14: 1} {
			if b, ok := blockOnLine(f, line); !ok || b.Mean != want {
				t.Errorf("line %d: mean %g (found %v), want %g", line, b.Mean, ok, want)
			}
		}
	}
	if !found {
		t.Errorf("no function sum2d in the report")
	}
	for _, tc := range []struct {
		fn    string
		input []string
		want  []string
	}{
		{"byval", []string{"p = 1"}, []string{"parameter 1 'p': a value of a struct cannot be drawn", "(its C type: struct pt)"}},
		{"byptr", []string{"ps = array(2, 1)", "n = 1"}, []string{"parameter 1 'ps': the pointed-to value of a struct cannot be drawn", "(its C type: struct pt *)"}},
	} {
		args := []string{src, "--func", tc.fn}
		for _, in := range tc.input {
			args = append(args, "--input", in)
		}
		_, code, stderr := freq(t, args...)
		for _, w := range tc.want {
			if code == 0 || !strings.Contains(stderr, w) {
				t.Errorf("--func %s: exit %d, stderr %q; want it to contain %q", tc.fn, code, stderr, w)
			}
		}
		if strings.Contains(stderr, "neither a parameter") || strings.Contains(stderr, "]*") {
			t.Errorf("--func %s: %s", tc.fn, stderr)
		}
	}
}

// TestFuncMainSetGlobals: --func warns about the globals the function reads that main
// sets at run time (through scanf, and through a function main calls), and not about
// those an input binds or the function never reads.
func TestFuncMainSetGlobals(t *testing.T) {
	_, code, stderr := freq(t, "testdata/mainset.c", "--func", "work", "--input", "n = uniform_int(1, 5)",
		"--input", "scale = 1.5", "--eps", "0.5", "--isolation", "none", "--max-trials", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: --func work reads the global 'limit', which main sets at run time") {
		t.Errorf("no warning about limit:\n%s", stderr)
	}
	for _, g := range []string{"'scale'", "'unused'"} {
		if strings.Contains(stderr, "global "+g) {
			t.Errorf("warned about %s:\n%s", g, stderr)
		}
	}
	_, _, stderr = freq(t, "testdata/mainset.c", "--func", "work", "--input", "n = 3", "--input", "limit = 2",
		"--eps", "0.5", "--isolation", "none", "--max-trials", "300")
	if !strings.Contains(stderr, "global 'scale', which main sets") || strings.Contains(stderr, "'limit'") {
		t.Errorf("want a warning about scale (set by init, called from main) only:\n%s", stderr)
	}
}
