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
