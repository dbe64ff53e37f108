//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// An example is a C program in examples/ that states how it is run and what fragprof
// must count, in comments:
//
//	// stdin: TEXT        the program's standard input (one line)
//	// args: A B          its arguments
//	// exit: N            its expected exit status (default 0)
//	// signal: SIGSEGV    it is expected to die by this signal
//	... // want N         the block that starts first on this line ran N times
//	... // want L=N ...   the block labelled L (in the function around this line) ran N times
//	... { // calls N      the function defined on this line was called N times
type example struct {
	path  string
	stdin string
	args  []string
	exit  int
	wants []want
}

type want struct {
	line  int
	label string // "" for the only block on the line; "calls" for a call count
	count uint64
}

var (
	reDirective = regexp.MustCompile(`^// (stdin|args|exit|signal): ?(.*)$`)
	reWant      = regexp.MustCompile(`// (want|calls) ((?:[\w.]+=)?\d+(?:\s+(?:[\w.]+=)?\d+)*)`)
)

var signals = map[string]int{"SIGSEGV": 11, "SIGABRT": 6, "SIGFPE": 8, "SIGBUS": 7}

func loadExample(t *testing.T, path string) example {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ex := example{path: path}
	for i, line := range strings.Split(string(data), "\n") {
		if m := reDirective.FindStringSubmatch(line); m != nil {
			switch m[1] {
			case "stdin":
				ex.stdin = m[2] + "\n"
			case "args":
				ex.args = strings.Fields(m[2])
			case "exit":
				ex.exit, _ = strconv.Atoi(m[2])
			case "signal":
				ex.exit = 128 + signals[m[2]]
			}
			continue
		}
		m := reWant.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, f := range strings.Fields(m[2]) {
			w := want{line: i + 1}
			if m[1] == "calls" {
				w.label = "calls"
			} else if l, v, ok := strings.Cut(f, "="); ok {
				w.label, f = l, v
			}
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: bad expectation %q", path, i+1, m[0])
			}
			w.count = n
			ex.wants = append(ex.wants, w)
		}
	}
	return ex
}

// countExample runs `fragprof count --json` on ex in-process and returns the report.
func countExample(t *testing.T, ex example, extra ...string) report.JSONProgram {
	t.Helper()
	out := filepath.Join(t.TempDir(), "counts.json")
	args := append([]string{"count", ex.path, "--json", "-o", out}, extra...)
	if len(ex.args) > 0 {
		args = append(append(args, "--"), ex.args...)
	}
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(ex.stdin), &stdout, &stderr)
	if code != ex.exit {
		t.Fatalf("fragprof count %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", ex.path, code, ex.exit, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report: %v\nstderr:\n%s", err, stderr.String())
	}
	var p report.JSONProgram
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// readJSON decodes the JSON file at path into a T.
func readJSON[T any](t *testing.T, path string) T {
	t.Helper()
	var v T
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// countBinary counts one run of bin, a binary built by fragprof, with count --binary
// and returns its JSON report.
func countBinary(t *testing.T, bin string, extra ...string) report.JSONProgram {
	t.Helper()
	out := filepath.Join(t.TempDir(), "counts.json")
	args := append([]string{"count", "--binary", bin, "--json", "-o", out}, extra...)
	if _, stderr, code := cli(t, "", args...); code != 0 {
		t.Fatalf("count --binary: exit %d\n%s", code, stderr)
	}
	return readJSON[report.JSONProgram](t, out)
}

// checkWants verifies every expectation of ex against the report.
func checkWants(t *testing.T, ex example, p report.JSONProgram) {
	t.Helper()
	for _, w := range ex.wants {
		where := fmt.Sprintf("%s:%d", ex.path, w.line)
		// The function around the line: the last one defined at or before it.
		var fn *report.JSONFunc
		for i := range p.Functions {
			f := &p.Functions[i]
			if filepath.Base(f.File) != filepath.Base(ex.path) {
				continue // a function of a header (the C++ library's templates)
			}
			if f.Line <= w.line && (fn == nil || f.Line > fn.Line) {
				fn = f
			}
		}
		if fn == nil {
			t.Errorf("%s: no function around the line", where)
			continue
		}
		switch w.label {
		case "calls":
			if fn.Line != w.line {
				t.Errorf("%s: 'calls' is not on a function's line", where)
			} else if fn.Calls == nil || *fn.Calls != w.count {
				t.Errorf("%s: %s called %v times, want %d", where, fn.Name, deref(fn.Calls), w.count)
			}
		case "":
			b, err := lineBlock(fn, w.line)
			if err != nil {
				t.Errorf("%s: %v", where, err)
			} else if got := deref(b.Count); got != w.count {
				t.Errorf("%s: block %s ran %d times, want %d", where, b.Label, got, w.count)
			}
		default:
			found := false
			for _, b := range fn.Blocks {
				if b.Label == w.label {
					found = true
					if got := deref(b.Count); got != w.count {
						t.Errorf("%s: block %s ran %d times, want %d", where, b.Label, got, w.count)
					}
				}
			}
			if !found {
				t.Errorf("%s: no block labelled %s in %s", where, w.label, fn.Name)
			}
		}
	}
}

// lineBlock returns the block that a "want N" on line means: the block that starts
// first on the line (by column), or else the only block holding the line.
func lineBlock(fn *report.JSONFunc, line int) (report.JSONBlock, error) {
	best, bestCol := -1, 0
	var holding []int
	for i, b := range fn.Blocks {
		if l, col := lineCol(b.Start); l == line {
			if best < 0 || col < bestCol {
				best, bestCol = i, col
			}
		}
		for _, x := range b.Lines {
			if x == line {
				holding = append(holding, i)
			}
		}
	}
	switch {
	case best >= 0:
		return fn.Blocks[best], nil
	case len(holding) == 1:
		return fn.Blocks[holding[0]], nil
	}
	return report.JSONBlock{}, fmt.Errorf("%d blocks hold the line and none starts on it: name one with LABEL=N", len(holding))
}

// lineCol reads the line and column of a "file:line:col" position.
func lineCol(pos string) (line, col int) {
	parts := strings.Split(pos, ":")
	if len(parts) < 3 {
		return 0, 0
	}
	line, _ = strconv.Atoi(parts[len(parts)-2])
	col, _ = strconv.Atoi(parts[len(parts)-1])
	return line, col
}

func deref(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

func exampleFiles(t *testing.T) []string {
	files, err := filepath.Glob("../../examples/*.c")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	cxx, err := filepath.Glob("../../examples/*.cpp")
	if err != nil || len(cxx) == 0 {
		t.Fatalf("no C++ examples found: %v", err)
	}
	return append(files, cxx...)
}

// TestExampleCounts runs every example under every counter scheme and checks the
// counts each carries in its comments. Flow conservation is checked by the dump
// reader on every run.
func TestExampleCounts(t *testing.T) {
	for _, file := range exampleFiles(t) {
		ex := loadExample(t, file)
		if len(ex.wants) == 0 {
			continue
		}
		for _, scheme := range []string{"chords", "blocks", "edges"} {
			t.Run(filepath.Base(file)+"/"+scheme, func(t *testing.T) {
				t.Parallel()
				p := countExample(t, ex, "--counters", scheme)
				checkWants(t, ex, p)
			})
		}
	}
}
