package sample

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPairedCost: the pairs alternate which run comes first, and the cost is the
// median of the pairs' differences, floored at 0; an error ends the measurement.
func TestPairedCost(t *testing.T) {
	var order []string
	script := func(name string, times ...time.Duration) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			order = append(order, name)
			d := times[0]
			times = times[1:]
			return d, nil
		}
	}
	// Differences 200, -50 and 600 µs: the median is 200 µs.
	got, err := pairedCost(3, script("plain", 1000e3, 1100e3, 900e3), script("preloaded", 1200e3, 1050e3, 1500e3))
	if err != nil || got != 200*time.Microsecond {
		t.Errorf("cost %v, %v; want 200µs", got, err)
	}
	if want := "plain preloaded preloaded plain plain preloaded"; strings.Join(order, " ") != want {
		t.Errorf("runs in the order %v, want %s", order, want)
	}
	// Preloaded runs that took less: no cost, not a negative one.
	if got, err := pairedCost(3, script("plain", 5e6, 5e6, 5e6), script("preloaded", 4e6, 4e6, 6e6)); err != nil || got != 0 {
		t.Errorf("cheaper preloaded runs: cost %v, %v; want 0", got, err)
	}
	order = nil
	failed := errors.New("no true(1)")
	got, err = pairedCost(3, script("plain", 1e6, 1e6, 1e6), func() (time.Duration, error) { order = append(order, "preloaded"); return 0, failed })
	if err != failed || got != 0 || len(order) != 2 {
		t.Errorf("a run that fails: cost %v, error %v after runs %v; want the error after 2 runs", got, err, order)
	}
}

// TestCachedCost: a cost is measured once per key and kept in fragprof's cache
// directory; later calls read it without measuring; another key, or a file whose
// key was altered, is measured anew; a measurement with nothing to measure with
// (ok false) or that fails is not kept.
func TestCachedCost(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FRAGPROF_CACHE", dir)
	measured := 0
	measure := func(c time.Duration, ok bool, err error) func() (time.Duration, bool, error) {
		return func() (time.Duration, bool, error) { measured++; return c, ok, err }
	}
	var told []string
	note := func(f string) { told = append(told, f) }
	first, err := CachedCost("test", "machine A\n", note, measure(123*time.Microsecond, true, nil))
	if err != nil || !first.OK || !first.Measured || first.Cost != 123*time.Microsecond || measured != 1 {
		t.Fatalf("first call: %+v, %v after %d measurements; want 123µs measured once", first, err, measured)
	}
	if filepath.Dir(first.File) != dir || !strings.HasPrefix(filepath.Base(first.File), "test-") {
		t.Errorf("kept in %s, want test-HASH in %s", first.File, dir)
	}
	if len(told) != 1 || told[0] != first.File {
		t.Errorf("told %q before measuring, want %s", told, first.File)
	}
	second, err := CachedCost("test", "machine A\n", note, measure(999, true, nil))
	if err != nil || !second.OK || second.Measured || second.Cost != first.Cost || second.File != first.File || measured != 1 || len(told) != 1 {
		t.Errorf("second call: %+v, %v, %d measurements; want %v read from %s", second, err, measured, first.Cost, first.File)
	}
	other, err := CachedCost("test", "machine B\n", nil, measure(7, true, nil))
	if err != nil || !other.Measured || other.Cost != 7 || other.File == first.File {
		t.Errorf("another machine: %+v, %v; want its own measurement in its own file", other, err)
	}
	// The file's key is checked, not only its name.
	if err := os.WriteFile(first.File, []byte("123000\nmachine C\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := CachedCost("test", "machine A\n", nil, measure(5, true, nil)); err != nil || !again.Measured || again.Cost != 5 {
		t.Errorf("a file of another key: %+v, %v; want a new measurement", again, err)
	}
	// Nothing to measure with, or a failure: not kept, measured at the next call.
	for _, m := range []func() (time.Duration, bool, error){measure(0, false, nil), measure(0, false, errors.New("broken"))} {
		before := measured
		r, _ := CachedCost("none", "machine A\n", nil, m)
		r2, _ := CachedCost("none", "machine A\n", nil, m)
		if r.OK || r2.OK || measured != before+2 {
			t.Errorf("a measurement that gave nothing: %+v then %+v after %d measurements, want 2 and none kept", r, r2, measured-before)
		}
	}
}

// TestStartCostKey: the start cost is kept per machine (the kernel and the CPU),
// per sampler library and per true(1) and its loader.
func TestStartCostKey(t *testing.T) {
	key := startCostKey()
	if !strings.HasPrefix(key, MachineKey()) || !strings.Contains(MachineKey(), "kernel ") || !strings.Contains(MachineKey(), "\ncpu ") {
		t.Errorf("key %q does not start with the machine's (kernel, cpu)", key)
	}
	if !strings.Contains(key, "\nlibrary ") {
		t.Errorf("key %q does not name the sampler library", key)
	}
	if path, err := exec.LookPath("true"); err == nil && !strings.Contains(key, "\nprogram "+path+" ") {
		t.Errorf("key %q does not name true(1), %s", key, path)
	}
}
