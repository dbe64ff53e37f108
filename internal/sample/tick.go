// This file finds the kernel's tick, on which POSIX CPU-time timers expire.

package sample

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultTick is the tick assumed when the kernel's configuration cannot be read:
// 4 ms, HZ=250, the default of Debian's and most distributions' x86-64 kernels.
const DefaultTick = 4 * time.Millisecond

var tickOnce struct {
	sync.Once
	d time.Duration
}

// KernelTick returns the period of the kernel's scheduler tick, 1/CONFIG_HZ, read
// from the running kernel's configuration (/boot/config-RELEASE, then
// /proc/config.gz), or DefaultTick. POSIX CPU-time timers are checked on the tick,
// so they expire on the first tick after their value: the in-process sampler draws
// a thread's first gap on that lattice (docs/sampling.md).
func KernelTick() time.Duration {
	tickOnce.Do(func() {
		tickOnce.d = DefaultTick
		var u unix.Utsname
		var paths []string
		if unix.Uname(&u) == nil {
			paths = append(paths, "/boot/config-"+unix.ByteSliceToString(u.Release[:]))
		}
		paths = append(paths, "/proc/config.gz")
		for _, p := range paths {
			if hz := configHZ(p); hz > 0 {
				tickOnce.d = time.Second / time.Duration(hz)
				return
			}
		}
	})
	return tickOnce.d
}

// configHZ returns CONFIG_HZ from a kernel configuration file (gzip-compressed if
// its name ends in .gz), or 0.
func configHZ(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return 0
		}
		defer z.Close()
		r = z
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CONFIG_HZ="); ok {
			if hz, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && hz > 0 && hz <= 10000 {
				return hz
			}
		}
	}
	return 0
}
