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

// KernelTick returns the period of the kernel's scheduler tick, 1/CONFIG_HZ: the
// resolution of CLOCK_MONOTONIC_COARSE, which Linux gives as its tick (TICK_NSEC,
// clock_getres(2)); else read from the running kernel's configuration
// (/boot/config-RELEASE, then /proc/config.gz); else DefaultTick. POSIX CPU-time
// timers are checked on the tick, so they expire on the first tick after their
// value: the in-process sampler draws a thread's first gap on that lattice
// (docs/sampling.md). The clock comes first because it costs one system call where
// decompressing /proc/config.gz cost every `fragprof sample` about 1 ms of CPU.
func KernelTick() time.Duration {
	tickOnce.Do(func() {
		tickOnce.d = DefaultTick
		if hz := coarseHZ(); hz > 0 {
			tickOnce.d = time.Second / time.Duration(hz)
			return
		}
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

// coarseHZ returns the tick rate that the resolution of CLOCK_MONOTONIC_COARSE
// gives (TICK_NSEC, 1/HZ rounded to the nanosecond), or 0 when the clock has none
// in the range configHZ accepts.
func coarseHZ() int {
	var ts unix.Timespec
	if unix.ClockGetres(unix.CLOCK_MONOTONIC_COARSE, &ts) != nil {
		return 0
	}
	res := ts.Nano()
	if res < int64(time.Second)/10000 || res > int64(time.Second) {
		return 0
	}
	return int((int64(time.Second) + res/2) / res)
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
