//go:build integration

package main

// Tests of the simplified CFG (--simplified, FRAGPROF_SIMPLIFIED=1): counters placed
// after LLVM's early simplification still count exactly, on real programs built by
// clang and simplified by LLVM's opt.

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// callCounts returns each function's call count, by name.
func callCounts(p report.JSONProgram) map[string]int64 {
	m := map[string]int64{}
	for _, f := range p.Functions {
		m[f.Name] = int64(deref(f.Calls))
	}
	return m
}

// blocksOf returns the number of blocks of the program's functions.
func blocksOf(p report.JSONProgram) int {
	n := 0
	for _, f := range p.Functions {
		n += len(f.Blocks)
	}
	return n
}

// checkSimplified counts ex with --simplified under every scheme (agree: the counts
// are the same, so exact) and against the source-level CFG: every function the
// simplification kept is called as often (it inlines nothing), none is added, and
// it leaves no more blocks than the source has.
func checkSimplified(t *testing.T, ex example, extra ...string) report.JSONProgram {
	t.Helper()
	simple := agree(t, ex, append([]string{"--simplified"}, extra...)...)
	source := countExample(t, ex, extra...)
	want := callCounts(ownFuncs(source, ex.path))
	for name, got := range callCounts(ownFuncs(simple, ex.path)) {
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: --simplified counts a function %s the source-level CFG does not have", ex.path, name)
		} else if got != w {
			t.Errorf("%s: --simplified: %s called %d times, the source-level CFG %d", ex.path, name, got, w)
		}
	}
	if s, b := blocksOf(simple), blocksOf(source); s > b {
		t.Errorf("%s: --simplified has %d blocks, the source-level CFG %d", ex.path, s, b)
	}
	return simple
}

// TestSimplified: with clang 14 and 19, on examples (C and C++, one that ends by
// exit() deep down) and on csmith programs, --simplified counts agree under every
// scheme, call counts equal the source-level CFG's, and the CFG is smaller where
// csmith's safe_math checks fold (TestCountersAgreeCsmith's seeds).
func TestSimplified(t *testing.T) {
	if _, err := osexec.LookPath("csmith"); err != nil {
		t.Fatal("csmith is not installed: run scripts/deps.sh (Debian: apt-get install csmith libcsmith-dev)")
	}
	for _, clang := range []string{"clang-14", "clang-19"} {
		t.Run(clang, func(t *testing.T) {
			t.Setenv("FRAGPROF_CLANG", clang)
			simplifiedCases(t)
		})
	}
}

func simplifiedCases(t *testing.T) {
	for _, name := range []string{"newton.c", "sort.c", "switch.c", "recursion.c", "shapes.cpp"} {
		path := filepath.Join("../../examples", name)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("example %s: %v", name, err)
		}
		ex := runOf(t, path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkSimplified(t, ex)
		})
	}
	t.Run("early-exit", func(t *testing.T) {
		t.Parallel()
		checkSimplified(t, example{path: "testdata/early.c", args: []string{"1"}, exit: 3})
	})
	dir := t.TempDir()
	var smaller atomic.Int32
	t.Run("csmith", func(t *testing.T) {
		for _, seed := range csmithSeeds[:4] {
			t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
				t.Parallel()
				ex := example{path: csmithProgram(t, dir, seed)}
				flags := []string{"--cflags", "-I/usr/include/csmith -w"}
				simple := checkSimplified(t, ex, flags...)
				if blocksOf(simple) < blocksOf(countExample(t, ex, flags...)) {
					smaller.Add(1)
				}
			})
		}
	})
	if smaller.Load() == 0 {
		t.Errorf("--simplified left as many blocks as the source has on every csmith program")
	}
}

// TestSimplifiedCC: a program built by fragprof cc with FRAGPROF_SIMPLIFIED=1 at -O2
// (counters promoted into registers) counts what count --simplified counts (every
// counter in memory), and count says which CFG it counted (on stderr and in its JSON).
func TestSimplifiedCC(t *testing.T) {
	t.Setenv("FRAGPROF_SIMPLIFIED", "1")
	ex := runOf(t, "../../examples/sort.c")
	bin := filepath.Join(t.TempDir(), "sort")
	if _, stderr, code := cli(t, "", "cc", "-O2", ex.path, "-o", bin); code != 0 {
		t.Fatalf("fragprof cc: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "counts.json")
	args := append([]string{"count", "--binary", bin, "--json", "-o", out, "--"}, ex.args...)
	_, stderr, code := cli(t, ex.stdin, args...)
	if code != 0 {
		t.Fatalf("count --binary: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "early simplification") {
		t.Errorf("count --binary of a simplified build does not say so:\n%s", stderr)
	}
	if mark := readJSON[struct{ Simplified bool }](t, out); !mark.Simplified {
		t.Errorf("count --binary --json of a simplified build has no \"simplified\": true")
	}
	got := countsOf(readJSON[report.JSONProgram](t, out))
	if want := countsOf(countExample(t, ex, "--simplified")); got != want {
		t.Errorf("fragprof cc with FRAGPROF_SIMPLIFIED=1 counts\n%s\nbut count --simplified\n%s", got, want)
	}
}
