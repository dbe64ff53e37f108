package build

import (
	"os"
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
