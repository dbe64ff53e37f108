package sample

import (
	"os/exec"
	"testing"
)

// TestEnvExportQuoting checks the export lines against what sh makes of them: each
// value, with quotes, spaces, dollars, backquotes, backslashes and newlines, must
// come back byte for byte.
func TestEnvExportQuoting(t *testing.T) {
	cases := []struct{ value, line string }{
		{"/a/b.so", `export V='/a/b.so'`},
		{"it's", `export V='it'\''s'`},
		{"''", `export V=''\'''\'''`},
		{"", `export V=''`},
	}
	for _, c := range cases {
		if got := (EnvVar{"V", c.value}).Export(); got != c.line {
			t.Errorf("Export(%q) = %s, want %s", c.value, got, c.line)
		}
	}
	// /bin/sh is POSIX's, there on every host fragprof runs on (the shell the
	// printed lines are for).
	for _, v := range []string{"plain", "it's", "a b\tc", "$HOME `id` $(id)", `back\slash\'`, "two\nlines", "'", "x'y'z"} {
		out, err := exec.Command("/bin/sh", "-c", (EnvVar{"V", v}).Export()+`; printf %s "$V"`).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if string(out) != v {
			t.Errorf("sh gave back %q for %q", out, v)
		}
	}
}
