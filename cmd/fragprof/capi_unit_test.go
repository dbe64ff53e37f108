package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModelCompileCLI checks model compile's usage errors.
func TestModelCompileCLI(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"model", "compile", "x.model"}, 2, "give the output file"},
		{[]string{"model", "compile", "x.model", "-o", filepath.Join(dir, "m.txt")}, 2, "name a C file (.c) or a compiled model (.fpm)"},
		{[]string{"model", "compile", filepath.Join(dir, "none.model"), "-o", filepath.Join(dir, "m.c")}, 1, "none.model"},
		{[]string{"model", "lib"}, 2, "give the directory"},
	} {
		_, stderr, code := runFragprof(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, stderr)
		}
	}
}
