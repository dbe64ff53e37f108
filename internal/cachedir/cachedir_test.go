package cachedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDir: $FRAGPROF_CACHE wins and is created; else fragprof under
// $XDG_CACHE_HOME; a directory that cannot be made is an error naming it.
func TestDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("FRAGPROF_CACHE", filepath.Join(tmp, "a", "b"))
	d, err := Dir()
	if err != nil || d != filepath.Join(tmp, "a", "b") {
		t.Fatalf("FRAGPROF_CACHE: %q, %v", d, err)
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		t.Errorf("%s not created: %v", d, err)
	}
	t.Setenv("FRAGPROF_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "xdg"))
	if d, err := Dir(); err != nil || d != filepath.Join(tmp, "xdg", "fragprof") {
		t.Errorf("XDG_CACHE_HOME: %q, %v", d, err)
	}
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	t.Setenv("FRAGPROF_CACHE", filepath.Join(file, "sub"))
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "FRAGPROF_CACHE") {
		t.Errorf("a cache under a file: %v, want an error naming it and FRAGPROF_CACHE", err)
	}
}

// TestEntry: an entry is built once, named by the hash of its key, put in place by
// rename; a new key builds a new entry; a failed build leaves nothing.
func TestEntry(t *testing.T) {
	t.Setenv("FRAGPROF_CACHE", t.TempDir())
	builds := 0
	build := func(content string) func(string) (string, error) {
		return func(tmp string) (string, error) {
			builds++
			p := filepath.Join(tmp, "out")
			return p, os.WriteFile(p, []byte(content), 0o644)
		}
	}
	key := [][]byte{[]byte("cc 1"), []byte("int main;")}
	p1, err := Entry("thing", ".o", key, build("one"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "thing-" + Hash(key) + ".o"; filepath.Base(p1) != want {
		t.Errorf("entry %s, want %s", filepath.Base(p1), want)
	}
	p2, err := Entry("thing", ".o", key, build("two"))
	if err != nil || p2 != p1 || builds != 1 {
		t.Errorf("second call: %s, %v, %d builds; want the first entry and one build", p2, err, builds)
	}
	if b, _ := os.ReadFile(p1); string(b) != "one" {
		t.Errorf("entry holds %q, want one", b)
	}
	// The parts are separated: ("ab","c") and ("a","bc") are different keys.
	if Hash([][]byte{[]byte("ab"), []byte("c")}) == Hash([][]byte{[]byte("a"), []byte("bc")}) {
		t.Error("Hash does not separate the parts of its key")
	}
	p3, err := Entry("thing", ".o", [][]byte{[]byte("cc 2"), []byte("int main;")}, build("three"))
	if err != nil || p3 == p1 || builds != 2 {
		t.Errorf("new key: %s, %v, %d builds; want a new entry", p3, err, builds)
	}
	_, err = Entry("broken", ".o", key, func(string) (string, error) { return "", os.ErrInvalid })
	if err == nil {
		t.Error("a failed build gave no error")
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p1), "broken*"))
	if len(left) != 0 {
		t.Errorf("a failed build left %v", left)
	}
}
