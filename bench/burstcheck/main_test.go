package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
)

// TestInsertChecks builds examples/hot/sortsum.c with the checks at each level, with
// clang 14 (typed pointers) and clang 19 (opaque), and checks that the program
// prints what the plain build prints, that the checks are where the levels say
// (one per function entry and loop header, outermost loops only for "outer"), and
// that the program still prints the same when the countdown runs out thousands of
// times (a period of 1000 instead of 1000003), so that the cold path runs.
func TestInsertChecks(t *testing.T) {
	src, err := filepath.Abs("../../examples/hot/sortsum.c")
	if err != nil {
		t.Fatal(err)
	}
	for _, clang := range []string{"clang-14", "clang-19"} {
		path, err := exec.LookPath(clang)
		if err != nil {
			t.Fatalf("%s: %v (scripts/deps.sh installs it)", clang, err)
		}
		tc, err := build.NewToolchain(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		ll := filepath.Join(dir, "in.ll")
		if err := tc.EmitIR(context.Background(), os.Stderr, src, ll, nil); err != nil {
			t.Fatal(err)
		}
		plain := filepath.Join(dir, "plain")
		if out, err := exec.Command(path, "-O2", "-o", plain, src).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", clang, err, out)
		}
		want, err := exec.Command(plain, "3000").Output()
		if err != nil {
			t.Fatal(err)
		}
		// sortsum has one function and four loops, one of them inside another.
		for _, c := range []struct {
			all    bool
			checks int
		}{{false, 4}, {true, 5}} {
			m, err := tc.ReadIR(ll, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := insertChecks(m, c.all, false); n != c.checks {
				t.Errorf("%s, all %v: %d checks, want %d", clang, c.all, n, c.checks)
			}
			m.StripDebug()
			text := string(m.Bytes())
			if got := strings.Count(text, "call void @__fp_burst_check()"); got != c.checks {
				t.Errorf("%s, all %v: %d calls of the check in the IR, want %d", clang, c.all, got, c.checks)
			}
			// A countdown of 1000 instead of a million: the sort runs out of it many
			// times, and the program must still print the same.
			text = strings.ReplaceAll(text, "1000003", "1000")
			edited := filepath.Join(dir, "out.ll")
			if err := os.WriteFile(edited, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			prog := filepath.Join(dir, "checked")
			if out, err := exec.Command(path, "-O2", "-Wno-override-module", "-o", prog, edited).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", clang, err, out)
			}
			got, err := exec.Command(prog, "3000").Output()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, all %v: printed %q (%v), want %q", clang, c.all, got, err, want)
			}
		}
	}
}
