//go:build integration

package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
)

// TestBuildChecked builds examples/hot/sortsum.c with the checks at each level,
// with clang 14 (typed pointers) and clang 19 (opaque), through the path the bench
// uses: the checks are where the levels say (one per function entry and loop
// header, outermost loops only at "outer": sortsum has one function and four loops,
// one inside another), and the program prints what the plain build prints when the
// countdown runs out thousands of times (a period of 1000), so that the cold path
// runs, with its call and without.
func TestBuildChecked(t *testing.T) {
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
		plain := filepath.Join(dir, "plain")
		if out, err := exec.Command(path, "-O2", "-o", plain, src).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", clang, err, out)
		}
		want, err := exec.Command(plain, "3000").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			pl     plan
			checks int
		}{
			{plan{"none", false, 1000}, 0},
			{plan{"outer", false, 1000}, 4},
			{plan{"all", false, 1000}, 5},
			{plan{"all", true, 1000}, 5},
		} {
			prog := filepath.Join(dir, "checked")
			n, err := buildChecked(tc, src, nil, c.pl, prog, nil)
			if err != nil {
				t.Fatalf("%s, %+v: %v", clang, c.pl, err)
			}
			if n != c.checks {
				t.Errorf("%s, %+v: %d checks, want %d", clang, c.pl, n, c.checks)
			}
			got, err := exec.Command(prog, "3000").Output()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, %+v: printed %q (%v), want %q", clang, c.pl, got, err, want)
			}
		}
	}
}
