//go:build integration

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// TestMakeProject builds examples/project — two C files and a header, with an
// ordinary Makefile that uses -MD — by `make CC="fragprof cc"`, then reads the
// self-describing binary with `count --binary` and checks the counts its sources
// state, across both translation units.
func TestMakeProject(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is needed (apt-get install make)")
	}
	dir := t.TempDir()
	fp := filepath.Join(dir, "fragprof")
	if out, err := exec.Command("go", "build", "-o", fp, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	proj := filepath.Join(dir, "project")
	os.MkdirAll(proj, 0o755)
	for _, f := range []string{"Makefile", "main.c", "table.c", "table.h"} {
		data, err := os.ReadFile(filepath.Join("../../examples/project", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(proj, f), data, 0o644)
	}
	mk := exec.Command("make", "CC="+fp+" cc")
	mk.Dir = proj
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make CC=\"fragprof cc\": %v\n%s", err, out)
	}
	for _, f := range []string{"main.d", "table.d", "wordfreq"} {
		if _, err := os.Stat(filepath.Join(proj, f)); err != nil {
			t.Errorf("make did not produce %s: %v", f, err)
		}
	}
	input := "to be or not to be that is the\n"
	want := "7 distinct\nbe: 2\nto: 2\nthe: 1\nxyz: 0\n"
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "counts.json")
	code := run([]string{"count", "--binary", filepath.Join(proj, "wordfreq"), "--json", "-o", out, "--", "be", "to", "the", "xyz"},
		strings.NewReader(input), &stdout, &stderr)
	if code != 0 || stdout.String() != want {
		t.Fatalf("count --binary: exit %d, stdout %q (want %q)\n%s", code, stdout.String(), want, stderr.String())
	}
	p := readJSON[report.JSONProgram](t, out)
	files := map[string]bool{}
	for _, f := range p.Functions {
		files[f.File] = true
	}
	if !files["main.c"] || !files["table.c"] {
		t.Errorf("functions come from %v, want main.c and table.c", files)
	}
	for _, src := range []string{"main.c", "table.c"} {
		ex := loadExample(t, filepath.Join("../../examples/project", src))
		// The report names files as make gave them (main.c); each file's
		// expectations are checked against its own functions.
		var q report.JSONProgram
		for _, f := range p.Functions {
			if f.File == src {
				q.Functions = append(q.Functions, f)
			}
		}
		checkWants(t, ex, q)
	}
}
