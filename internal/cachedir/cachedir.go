// Package cachedir names fragprof's cache directory, where the compiled runtime, the
// sampler's library and the per-machine calibrations are kept, and builds its
// entries: each once, named by the hash of what it is made from, put in place
// atomically.
package cachedir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Dir returns fragprof's cache directory, creating it: $FRAGPROF_CACHE, else fragprof
// under the user's cache directory ($XDG_CACHE_HOME, else ~/.cache), else under the
// temporary directory. When it cannot be made, the error names it and says what to do.
func Dir() (string, error) {
	dir := os.Getenv("FRAGPROF_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "fragprof")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("fragprof's cache directory %s: %v (set FRAGPROF_CACHE or XDG_CACHE_HOME to a writable directory)", dir, err)
	}
	return dir, nil
}

// Hash returns the first 16 hex digits of the SHA-256 of key's parts, each followed
// by a NUL: the name of what is made from them.
func Hash(key [][]byte) string {
	h := sha256.New()
	for _, k := range key {
		h.Write(k)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// buildMu serialises the builds of cache entries within one process; processes
// that build the same entry at once each rename their own result into place.
var buildMu sync.Mutex

// Entry returns the path of the cache file prefix-HASH.ext, building it on first
// use. HASH is Hash(key), key being everything the file is made from (compiler, version, sources, flags),
// so that a change of any of them makes a new entry. To build it, build is called
// with a fresh temporary directory inside the cache directory and returns the path
// of the file it made there; that file is renamed into place (atomic: a reader
// never sees a half-written entry) and the directory removed.
func Entry(prefix, ext string, key [][]byte, build func(tmp string) (string, error)) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, prefix+"-"+Hash(key)+ext)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp, err := os.MkdirTemp(dir, prefix+"-build")
	if err != nil {
		return "", fmt.Errorf("fragprof's cache directory %s: %v", dir, err)
	}
	defer os.RemoveAll(tmp)
	out, err := build(tmp)
	if err != nil {
		return "", err
	}
	if err := os.Rename(out, path); err != nil {
		return "", err
	}
	return path, nil
}
