package tmpdir

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReap: Reap removes a directory whose lock file nobody holds and is older than
// the grace, and leaves one this process holds, one whose lock file is new, one
// without a lock file, and one kept (Keep).
func TestReap(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	held, err := Make("held")
	if err != nil {
		t.Fatal(err)
	}
	defer Remove(held)
	kept, _ := Make("kept")
	Keep(kept)
	dead, _ := Make("dead")
	young, _ := Make("young")
	release(dead)
	release(young)
	foreign := filepath.Join(os.TempDir(), Prefix+"foreign")
	os.Mkdir(foreign, 0o755)
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{held, dead} {
		os.Chtimes(filepath.Join(d, lockName), old, old)
	}
	Reap(os.TempDir(), Prefix)
	for d, want := range map[string]bool{held: true, kept: true, dead: false, young: true, foreign: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}
