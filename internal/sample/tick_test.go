package sample

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// TestCoarseHZ wants the tick rate read from the coarse clock to be the one the
// running kernel's configuration states, where it can be read (/proc/config.gz,
// /boot/config-RELEASE), and a CONFIG_HZ a kernel can have everywhere.
func TestCoarseHZ(t *testing.T) {
	hz := coarseHZ()
	switch hz {
	case 100, 250, 300, 1000:
	default:
		t.Fatalf("coarseHZ() = %d: not a CONFIG_HZ of Linux", hz)
	}
	var u unix.Utsname
	unix.Uname(&u)
	for _, p := range []string{"/proc/config.gz", "/boot/config-" + unix.ByteSliceToString(u.Release[:])} {
		if want := configHZ(p); want > 0 && hz != want {
			t.Errorf("coarseHZ() = %d, but %s says CONFIG_HZ=%d", hz, p, want)
		}
	}
	if d := KernelTick(); d != time.Second/time.Duration(hz) {
		t.Errorf("KernelTick() = %v, want 1/%d s", d, hz)
	}
}
