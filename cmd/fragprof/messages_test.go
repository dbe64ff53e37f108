// Tests that messages speak of the user's files and flags, never of fragprof's
// internals.

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// internalText is what a message must never show: temporary IR files and work
// directories, hidden temporary files, cobra's and Go's parser texts.
var internalText = regexp.MustCompile(`/tmp/fragprof-|\.ll\b|\.tmp[0-9]|accepts \d+ arg|strconv\.|(?:^|\s)json: |fork/exec|goroutine `)

func TestMessagesNameUserFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model := write("bad.model", "{\n  \"nodes\": [\n    1,\n  ]\n}\n")
	report := write("bad.json", "{\"counters\": 1, \"functions\": [\n  {\"name\": 3}\n]}\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"output in a missing directory", []string{"count", "../../examples/straight.c", "-o", filepath.Join(dir, "no", "out.txt")}, 1, []string{"-o " + filepath.Join(dir, "no", "out.txt") + ": the directory " + filepath.Join(dir, "no") + " does not exist"}},
		{"argument count", []string{"model", "show"}, 2, []string{"model show: wrong number of arguments (got 0): usage: fragprof model show FILE"}},
		{"flag value", []string{"freq", "x.c", "--eps", "abc"}, 2, []string{`freq: --eps "abc": want a number`}},
		{"duration", []string{"freq", "x.c", "--trial-timeout", "5"}, 2, []string{`--trial-timeout "5": want a duration`}},
		{"unknown flag", []string{"count", "x.c", "--colour"}, 2, []string{"count: unknown flag: --colour"}},
		{"no such source", []string{"count", filepath.Join(dir, "nosuch.c")}, 2, []string{"nosuch.c: no such file or directory"}},
		{"model JSON", []string{"model", "show", model}, 1, []string{"bad.model: not a valid model file", "line 4, column 3"}},
		{"report JSON", []string{"report", report, "-o", filepath.Join(dir, "r.html")}, 1, []string{"bad.json", "line 2"}},
		{"--binary missing", []string{"count", "--binary", filepath.Join(dir, "nosuch")}, 2, []string{"--binary " + filepath.Join(dir, "nosuch") + ": no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := cli(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if m := internalText.FindString(stderr); m != "" {
				t.Errorf("internal text %q in:\n%s", m, stderr)
			}
		})
	}
}

// TestCCHelp: 'fragprof cc --help' and 'fragprof c++ --help' (and -h) are
// fragprof's pages (what the command adds, the environment), not clang's 1,175 lines.
func TestCCHelp(t *testing.T) {
	for _, args := range [][]string{{"cc", "--help"}, {"c++", "--help"}, {"c++", "-O2", "-h"}} {
		out, _, code := cli(t, "", args...)
		if code != 0 || !strings.Contains(out, "FRAGPROF_COUNTERS") || !strings.Contains(out, "Usage:\n  fragprof "+args[0]) ||
			strings.Contains(out, "OVERVIEW: clang") || strings.Count(out, "\n") > 80 {
			t.Errorf("%v: exit %d, %d lines:\n%.500s", args, code, strings.Count(out, "\n"), out)
		}
	}
}
