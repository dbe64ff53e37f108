// This file keeps the in-process sampler's start cost (StartCost) measured once per
// machine, in fragprof's cache directory.

package sample

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/cachedir"
)

// A StartCostResult is a cost measured once per machine (the in-process sampler's
// start, fragprof's own exit), and where it came from.
type StartCostResult struct {
	Cost time.Duration
	OK   bool   // false: the system has no preloadable true(1), nothing measured
	File string // the cache file that holds it
	// Measured is true when this call measured it (its runs of true(1) are part
	// of this process's children), false when it was read from File.
	Measured bool
}

// CachedStartCost returns the start cost measured by StartCost(pairs) on this
// machine: read from fragprof's cache directory (cacheDir) when a file there names
// the same machine, else measured and written there (CachedCost). The machine is
// named by what the start cost depends on: the kernel (release and build), the CPU
// model and count, the sampler library (the hash of its source and flags), and
// true(1) and its dynamic loader (path, size and modification time). Delete the
// file to measure again. note, when not nil, is told before a measurement starts.
func CachedStartCost(pairs int, note func(file string)) (StartCostResult, error) {
	return CachedCost("startcost", startCostKey(), note, func() (time.Duration, bool, error) { return StartCost(pairs) })
}

// CachedCost returns a cost measured once per machine: read from the file
// NAME-HASH of fragprof's cache directory, HASH that of key (a description of what
// the cost depends on, kept in the file and checked), else measured by measure and
// written there atomically, after telling note (when not nil) which file it
// measures for. ok false from measure (nothing to measure with) is returned as is
// and not kept.
func CachedCost(name, key string, note func(file string), measure func() (time.Duration, bool, error)) (StartCostResult, error) {
	var r StartCostResult
	dir, err := cachedir.Dir()
	if err != nil {
		return r, err
	}
	sum := sha256.Sum256([]byte(key))
	r.File = filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:])[:16])
	if b, err := os.ReadFile(r.File); err == nil {
		if c, ok := parseStartCost(string(b), key); ok {
			r.Cost, r.OK = c, true
			return r, nil
		}
	}
	if note != nil {
		note(r.File)
	}
	c, ok, err := measure()
	if err != nil || !ok {
		return r, err
	}
	r.Cost, r.OK, r.Measured = c, true, true
	body := fmt.Sprintf("%d\n%s", c.Nanoseconds(), key)
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return r, nil // measured, not kept: the next run measures again
	}
	_, werr := tmp.WriteString(body)
	if cerr := tmp.Close(); werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), r.File)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return r, nil
}

// parseStartCost reads a cache file: the cost in ns on its first line, then the key
// it was measured under, which must be key.
func parseStartCost(body, key string) (time.Duration, bool) {
	first, rest, ok := strings.Cut(body, "\n")
	if !ok || rest != key {
		return 0, false
	}
	ns, err := strconv.ParseInt(first, 10, 64)
	if err != nil || ns < 0 {
		return 0, false
	}
	return time.Duration(ns), true
}

// MachineKey describes the machine as costs measured on it depend on it: the
// kernel (release and build), the CPU model and count; one item a line.
func MachineKey() string {
	var u unix.Utsname
	kernel := "unknown"
	if unix.Uname(&u) == nil {
		kernel = unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Version[:])
	}
	return fmt.Sprintf("kernel %s\ncpu %s x %d\n", kernel, cpuModel(), cpuCount())
}

// FileIdentity is a file's path, size and modification time (of what it links
// to), for the keys of CachedCost.
func FileIdentity(path string) string { return fileIdentity(path) }

// startCostKey describes the machine as the start cost depends on it, one item a line.
func startCostKey() string {
	var b strings.Builder
	b.WriteString(MachineKey())
	fmt.Fprintf(&b, "library %s\n", cachedir.Hash(preloadKey()))
	if path, err := exec.LookPath("true"); err == nil {
		fmt.Fprintf(&b, "program %s\n", fileIdentity(path))
		if f, err := elf.Open(path); err == nil {
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					buf := make([]byte, p.Filesz)
					if _, err := p.ReadAt(buf, 0); err == nil {
						fmt.Fprintf(&b, "loader %s\n", fileIdentity(strings.TrimRight(string(buf), "\x00")))
					}
				}
			}
			f.Close()
		}
	}
	return b.String()
}

// fileIdentity is a file's path, size and modification time (of what it links to).
func fileIdentity(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return path + " (missing)"
	}
	return fmt.Sprintf("%s %d %d", path, st.Size(), st.ModTime().UnixNano())
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// cpuCount returns the number of CPUs this process may run on.
func cpuCount() int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return 0
	}
	return set.Count()
}
