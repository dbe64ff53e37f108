//go:build integration

package build

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CC is CCStdio with clang's output to stderr and no standard input.
func (t *Toolchain) CC(ctx context.Context, args []string, stderr io.Writer) error {
	return t.CCStdio(ctx, args, Stdio{Err: stderr})
}

// ptrC is C whose typed-pointer IR holds " ptr " in strings and names, as sqlite3.c's
// does ("Bad ptr map entry key=%u"), which once made fragprof write opaque pointers
// into clang 14's typed IR.
const ptrC = `#include <stdio.h>
static const char *msg = "Bad ptr map entry (ptr) ptr, key=%u\n";
int main(int argc, char **argv) {
	char *ptr = argv[0];
	unsigned n = 0;
	for (int i = 0; i < 5; i++)
		n += ptr[0] != 0;
	printf(msg, n);
	return 0;
}
`

// TestDialectFromClang builds ptrC with fragprof cc under every installed clang and
// the flags that switch its pointer dialect, and runs it.
func TestDialectFromClang(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ptr.c")
	if err := os.WriteFile(src, []byte(ptrC), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		clang string
		flags []string
	}{
		{"clang-14", nil},
		{"clang-14", []string{"-Xclang", "-opaque-pointers"}},
		{"clang-16", []string{"-Xclang", "-no-opaque-pointers"}},
		{"clang-16", nil},
		{"clang-19", nil},
	}
	ran := 0
	for i, c := range cases {
		path, err := exec.LookPath(c.clang)
		if err != nil {
			continue // scripts/deps.sh installs clang-14 and clang-16; clang-19 is optional
		}
		tc, err := NewToolchain(path)
		if err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "ptr"+string(rune('a'+i)))
		var msg bytes.Buffer
		args := append(append([]string{"-O2"}, c.flags...), src, "-o", exe)
		if err := tc.CC(context.Background(), args, &msg); err != nil {
			t.Fatalf("%s %q: %v\n%s", c.clang, c.flags, err, msg.String())
		}
		out, err := exec.Command(exe).Output()
		if err != nil || string(out) != "Bad ptr map entry (ptr) ptr, key=5\n" {
			t.Errorf("%s %q: the instrumented program printed %q (%v)", c.clang, c.flags, out, err)
		}
		ran++
	}
	if ran < 3 {
		t.Fatalf("only %d of the clang builds could run: clang-14 and clang-16 must be installed", ran)
	}
}
