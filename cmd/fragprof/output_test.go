//go:build integration

// Tests of where reports and the program's output go (output.go), and of the
// program identity that merge and diff check.

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// TestJSONToStdout: 'count --json > file' gives a file that parses as JSON, with
// the program's own stdout on stderr or in --program-output; a text report stays on
// stderr with the program's stdout on stdout.
func TestJSONToStdout(t *testing.T) {
	for _, format := range [][]string{{"--json"}, {"--format", "json"}} {
		out, errOut, code := cli(t, "400\n", append([]string{"count", "../../examples/newton.c"}, format...)...)
		if code != 0 {
			t.Fatalf("count %v: exit %d\n%s", format, code, errOut)
		}
		var p report.JSONProgram
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("count %v: stdout is not JSON: %v\n%s", format, err, out)
		}
		if len(p.Functions) == 0 || p.Runs != 1 {
			t.Errorf("count %v: JSON report has %d functions, %d runs", format, len(p.Functions), p.Runs)
		}
		if !strings.Contains(errOut, "20.000000") {
			t.Errorf("count %v: the program's stdout (20.000000) is not on stderr:\n%s", format, errOut)
		}
	}
	dot, _, code := cli(t, "400\n", "count", "../../examples/newton.c", "--format", "dot")
	if code != 0 || !strings.HasPrefix(dot, "digraph") {
		t.Errorf("count --format dot: exit %d, stdout does not start with digraph:\n%.200s", code, dot)
	}
	po := filepath.Join(t.TempDir(), "prog.out")
	out, errOut, code := cli(t, "400\n", "count", "../../examples/newton.c", "--json", "--program-output", po)
	data, _ := os.ReadFile(po)
	if code != 0 || !json.Valid([]byte(out)) || string(data) != "20.000000\n" || strings.Contains(errOut, "20.000000") {
		t.Errorf("count --json --program-output: exit %d, valid JSON %v, program output %q, stderr:\n%s", code, json.Valid([]byte(out)), data, errOut)
	}
	out, errOut, code = cli(t, "400\n", "count", "../../examples/newton.c")
	if code != 0 || out != "20.000000\n" || !strings.Contains(errOut, "nsqrt") {
		t.Errorf("count (text): exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	// The same routing for every command: time's JSON report.
	out, errOut, code = cli(t, "", "time", "../../examples/straight.c", "--fragment", "program", "--reps", "3", "--json")
	var tm map[string]any
	if err := json.Unmarshal([]byte(out), &tm); code != 0 || err != nil || tm["fragments"] == nil {
		t.Errorf("time --json: exit %d, stdout not its JSON report (%v):\n%.300s\n%s", code, err, out, errOut)
	}
}

// TestMergeDiffDifferentPrograms: profiles of two programs carry their identity;
// merge refuses them naming both unless --force, diff says they are different
// programs, and show prints the identity.
func TestMergeDiffDifferentPrograms(t *testing.T) {
	dir := t.TempDir()
	a, b, m := filepath.Join(dir, "a.fpp"), filepath.Join(dir, "b.fpp"), filepath.Join(dir, "m.fpp")
	if _, errOut, code := cli(t, "400\n", "count", "../../examples/newton.c", "--profile", a, "-o", os.DevNull); code != 0 {
		t.Fatalf("count newton: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := cli(t, "", "count", "../../examples/straight.c", "--profile", b, "-o", os.DevNull); code != 0 {
		t.Fatalf("count straight: exit %d\n%s", code, errOut)
	}
	_, errOut, code := cli(t, "", "merge", a, b, "-o", m)
	if code != 1 || !strings.Contains(errOut, "different programs") || !strings.Contains(errOut, "newton.c (program") ||
		!strings.Contains(errOut, "straight.c (program") {
		t.Errorf("merge of two programs: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(m); err == nil {
		t.Errorf("the refused merge wrote %s", m)
	}
	if _, errOut, code := cli(t, "", "merge", a, b, "-o", m, "--force"); code != 0 {
		t.Errorf("merge --force: exit %d\n%s", code, errOut)
	}
	_, errOut, code = cli(t, "", "diff", a, b)
	if code != 1 || !strings.Contains(errOut, "different programs") {
		t.Errorf("diff of two programs: exit %d\n%s", code, errOut)
	}
	if out, errOut, code := cli(t, "", "diff", a, b, "--force"); code != 0 || !strings.Contains(out, "overlap: 0.00%") {
		t.Errorf("diff --force: exit %d\n%s%s", code, out, errOut)
	}
	// The same program merges; show names it.
	if _, errOut, code := cli(t, "", "merge", a, a, "-o", m); code != 0 {
		t.Errorf("merge a a: exit %d\n%s", code, errOut)
	}
	out, _, _ := cli(t, "", "show", m)
	if !strings.Contains(out, "examples/newton.c (program ") {
		t.Errorf("show does not name the program:\n%s", out)
	}
}

// TestVersion: --version names fragprof, Go and clang.
func TestVersion(t *testing.T) {
	out, errOut, code := cli(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "fragprof ") || !strings.Contains(out, "\ncommit: ") ||
		!strings.Contains(out, "\ngo: go1.") || !strings.Contains(out, "\nclang: ") || !strings.Contains(out, "clang version") {
		t.Errorf("--version: exit %d\n%s%s", code, out, errOut)
	}
}

// TestReportWithoutGraphviz: when dot cannot run, the page lists the blocks and
// stderr says why.
func TestReportWithoutGraphviz(t *testing.T) {
	dir := t.TempDir()
	counts, page := filepath.Join(dir, "c.json"), filepath.Join(dir, "p.html")
	if _, errOut, code := cli(t, "400\n", "count", "../../examples/newton.c", "--json", "-o", counts); code != 0 {
		t.Fatalf("count: exit %d\n%s", code, errOut)
	}
	_, errOut, code := cli(t, "", "report", counts, "-o", page, "--dot", filepath.Join(dir, "no-such-dot"))
	if code != 0 || !strings.Contains(errOut, "warning: report:") || !strings.Contains(errOut, "graphs are shown as lists") {
		t.Errorf("report without dot: exit %d, stderr:\n%s", code, errOut)
	}
	t.Setenv("PATH", dir)
	_, errOut, code = cli(t, "", "report", counts, "-o", page)
	if code != 0 || !strings.Contains(errOut, "install the graphviz package") {
		t.Errorf("report with no dot in $PATH: exit %d, stderr:\n%s", code, errOut)
	}
}
