// Package tmpdir makes fragprof's temporary directories so that a fragprof ended by
// SIGKILL, which removes nothing, does not leave them in TMPDIR for good: the
// process that makes a directory holds a lock (flock) on the file .fragprof-lock in
// it for as long as it lives, which the kernel releases when it dies however it
// dies, and Make first removes the directories whose lock nobody holds.
package tmpdir

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// lockName is the file in each directory whose flock its maker holds.
const lockName = ".fragprof-lock"

// grace is how old a lock file nobody holds must be for its directory to be reaped:
// its maker creates it and locks it at once, so only a maker that died leaves it
// unlocked longer.
const grace = 10 * time.Second

// Prefix begins the name of every directory Make makes.
const Prefix = "fragprof-"

var (
	mu   sync.Mutex
	held = map[string]*os.File{} // directory → its locked file
	reap sync.Once
)

// Make creates a new directory in os.TempDir() named Prefix, name and a random
// string (os.MkdirTemp), locked by this process until Remove. The first call of a
// process first removes the directories of fragprof processes that are gone (Reap).
func Make(name string) (string, error) {
	reap.Do(func() { Reap(os.TempDir(), Prefix) })
	prefix := Prefix + name
	d, err := os.MkdirTemp("", prefix+"*")
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(filepath.Join(d, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.RemoveAll(d)
		return "", err
	}
	mu.Lock()
	held[d] = f
	mu.Unlock()
	return d, nil
}

// Remove removes dir, made by Make, and releases its lock.
func Remove(dir string) error {
	err := os.RemoveAll(dir)
	release(dir)
	return err
}

// release closes dir's lock file.
func release(dir string) {
	mu.Lock()
	if f := held[dir]; f != nil {
		f.Close()
		delete(held, dir)
	}
	mu.Unlock()
}

// Keep leaves dir, made by Make, for good (FRAGPROF_KEEP): its lock file is removed,
// so that no later Reap takes it.
func Keep(dir string) {
	os.Remove(filepath.Join(dir, lockName))
	release(dir)
}

// Reap removes the directories of parent whose names start with prefix and whose
// lock file nobody has held for grace: those of fragprof processes that died
// without removing them. A directory without a lock file (made by something else)
// is left alone.
func Reap(parent, prefix string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		d := filepath.Join(parent, e.Name())
		f, err := os.Open(filepath.Join(d, lockName))
		if err != nil {
			continue
		}
		st, err := f.Stat()
		if err == nil && time.Since(st.ModTime()) > grace && syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(d)
		}
		f.Close()
	}
}
