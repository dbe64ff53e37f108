// Package cachedir names fragprof's cache directory, where the compiled runtime, the
// sampler's library and the per-machine calibrations are kept.
package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
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
