package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	notResult := filepath.Join(dir, "x.txt")
	os.WriteFile(notResult, []byte("hello"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no file", []string{"report"}, 2, "name one result file"},
		{"two files", []string{"report", "a", "b"}, 2, "name one result file"},
		{"missing", []string{"report", filepath.Join(dir, "none.json")}, 1, "no such file"},
		{"not a result", []string{"report", notResult}, 1, "neither a profile file, a dump file (FRAGPROF_OUT) nor fragprof JSON"},
		{"o and http", []string{"report", notResult, "-o", "x.html", "--http", ":0"}, 2, "not both"},
		{"http without address", []string{"report", notResult, "-http"}, 2, "needs an argument"},
		{"bad address", []string{"report", notResult, "-http", "8080"}, 1, "neither"},
		{"unknown flag", []string{"report", "--colour", notResult}, 2, "unknown flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := reportCLI(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

func TestPprofFlags(t *testing.T) {
	got := pprofFlags([]string{"f.json", "-http", ":8080", "-base=x", "-o", "y", "--", "-http"})
	want := []string{"f.json", "--http", ":8080", "--base=x", "-o", "y", "--", "-http"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("pprofFlags = %q, want %q", got, want)
	}
}
