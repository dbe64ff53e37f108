package build

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestOpaquePointers(t *testing.T) {
	cases := []struct {
		major int
		flags []string
		want  bool
	}{
		{14, nil, false},
		{14, []string{"-Xclang", "-opaque-pointers"}, true},
		{14, []string{"-mllvm", "-opaque-pointers"}, true},
		{14, []string{"-Xclang", "-opaque-pointers", "-Xclang", "-no-opaque-pointers"}, false},
		{15, nil, true},
		{16, []string{"-Xclang", "-no-opaque-pointers"}, false},
		{16, []string{"-mllvm", "-opaque-pointers=0"}, false},
		{16, []string{"-I", "-Xclang"}, true},
		{19, nil, true},
		{19, []string{"-Xclang", "-no-opaque-pointers"}, true},
	}
	for _, c := range cases {
		tc := &Toolchain{Major: c.major}
		if got := tc.OpaquePointers(c.flags); got != c.want {
			t.Errorf("clang %d %q: opaque %v, want %v", c.major, c.flags, got, c.want)
		}
	}
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

// TestSameFile: an output names an input when both are the same existing regular
// file, by path or through a link; a string that names no file (a -D macro, a
// template) or a directory never does.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	if err := os.WriteFile(src, []byte("int x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l.c")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out, in string
		want    bool
	}{
		{src, src, true},
		{filepath.Join(dir, ".", "p.c"), src, true},
		{link, src, true},
		{src, link, true},
		{filepath.Join(dir, "q.c"), src, false},
		{"NDEBUG", "NDEBUG", false},
		{dir, dir, false},
	} {
		if got := SameFile(tc.out, tc.in); got != tc.want {
			t.Errorf("SameFile(%s, %s) = %v, want %v", tc.out, tc.in, got, tc.want)
		}
	}
}
