package sample

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestConfigHZ reads CONFIG_HZ from a plain and a gzip-compressed kernel
// configuration, ignores the other CONFIG_HZ_* lines, and finds none in a file
// without it; KernelTick is 1/HZ of the running kernel or the default.
func TestConfigHZ(t *testing.T) {
	dir := t.TempDir()
	conf := "# CONFIG_HZ_100 is not set\nCONFIG_HZ_300=y\nCONFIG_HZ=300\nCONFIG_HZ_PERIODIC=y\n"
	plain := filepath.Join(dir, "config")
	if err := os.WriteFile(plain, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "config.gz")
	f, err := os.Create(gz)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	z.Write([]byte("CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"))
	z.Close()
	f.Close()
	none := filepath.Join(dir, "none")
	os.WriteFile(none, []byte("CONFIG_NO_HZ=y\n"), 0o644)
	for path, want := range map[string]int{plain: 300, gz: 1000, none: 0, filepath.Join(dir, "missing"): 0} {
		if got := configHZ(path); got != want {
			t.Errorf("configHZ(%s) = %d, want %d", filepath.Base(path), got, want)
		}
	}
	if d := KernelTick(); d < 100*time.Microsecond || d > 10*time.Millisecond || time.Second%d != 0 {
		t.Errorf("KernelTick() = %v: not 1/HZ for a plausible HZ", d)
	}
}
