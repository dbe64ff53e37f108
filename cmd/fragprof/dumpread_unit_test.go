package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/dump"
)

// TestProfileReadersRefuseNeither: every command that reads profile files refuses a
// file that is neither a profile file nor a dump file, naming the file and both kinds
// it accepts; a file that starts like a dump file but is damaged is refused as a dump.
func TestProfileReadersRefuseNeither(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.bin")
	for _, f := range []string{garbage, garbage + ".c"} {
		if err := os.WriteFile(f, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	neither := []string{garbage + ": bad magic: neither a fragprof profile file", "nor a dump file (written for FRAGPROF_OUT"}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"show", []string{"show", garbage}, neither},
		{"merge", []string{"merge", garbage, "-o", out}, neither},
		{"diff", []string{"diff", garbage, garbage}, neither},
		{"export", []string{"export", garbage, "--format", "json"}, neither},
		{"pgo", []string{"pgo", garbage + ".c", "--profile", garbage, "-o", out}, neither},
		{"freq --from", []string{"freq", "--from", garbage}, neither},
		{"report", []string{"report", garbage, "-o", out}, []string{garbage + ": neither a profile file, a dump file (FRAGPROF_OUT) nor fragprof JSON"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := cli(t, "", c.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	damaged := filepath.Join(dir, "damaged.fpd")
	if err := os.WriteFile(damaged, []byte(dump.FileMagic+"short"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := cli(t, "", "show", damaged)
	if want := damaged + ": not a valid fragprof dump file"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("show of a damaged dump file: exit %d, want 1 and %q in:\n%s", code, want, stderr)
	}
}
