package predict

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/predict/regress"
)

// testCaches are the test VM's: 48 KiB L1, 1 MiB L2, an L3 set aside.
var testCaches = Caches{Levels: []CacheLevel{{1, 48 << 10}, {2, 1 << 20}, {3, 0}}, Source: "getconf"}

// memModel is a model whose only part is a working set of 8·n + 40 KiB bytes
// measured between lo and hi.
func memModel(t *testing.T, lo, hi float64) *Model {
	t.Helper()
	m := &Model{Inputs: []string{"n"}, Memory: &Memory{Fit: &regress.PowerLaw{Input: "n", A: 40 << 10, B: 8, K: 1},
		Points: 5, MinBytes: lo, MaxBytes: hi, Caches: testCaches}}
	if err := m.Memory.Fit.Compile(m.Inputs); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCacheCrossing: a prediction crosses a level only where the training runs'
// working sets all lie on the other side of it — beyond the smallest level they
// all fit in, or within the largest none fit in — and names the further levels
// crossed; an unknown level is never crossed.
func TestCacheCrossing(t *testing.T) {
	inL2 := memModel(t, 60<<10, 500<<10) // past L1, inside L2
	for _, tc := range []struct {
		m         *Model
		n         float64
		dir       string
		level     int
		also      []int
		wantWords string
	}{
		{inL2, 30000, "", 0, nil, ""}, // 274 KiB: inside the training span
		{inL2, 80000, "", 0, nil, ""}, // 665 KiB: in L2, under its size/1.4
		// 977 KiB: in L2 but within ×1.4 of its size, where every training run
		// was well inside it.
		{inL2, 120000, "beyond", 2, nil, "within ×1.4 of the 1 MiB L2 that every training run fit well inside"},
		// Training runs already near L2 (900 KiB): only past its size.
		{memModel(t, 60<<10, 900<<10), 120000, "", 0, nil, ""},
		{inL2, 4e6, "beyond", 2, nil, "beyond the 1 MiB L2 that every training run fit in"},
		{inL2, 1000, "within", 1, nil, "inside the 48 KiB L1 that no training run fit in"}, // 47.8 KiB
		{memModel(t, 8<<10, 40<<10), 1e6, "beyond", 1, []int{2}, "beyond the 48 KiB L1 and L2"},
		{memModel(t, 2<<20, 8<<20), 100, "within", 2, []int{1}, "inside the 1 MiB L2 and L1 that no training run fit in"},
		{memModel(t, 2<<20, 8<<20), 1e8, "", 0, nil, ""}, // L3 unknown: nothing to cross
	} {
		c := tc.m.cacheCrossing([]float64{tc.n})
		if tc.dir == "" {
			if c != nil {
				t.Errorf("n = %g: crossing %+v, want none", tc.n, c)
			}
			continue
		}
		if c == nil || c.Direction != tc.dir || c.Level != tc.level || len(c.Also) != len(tc.also) {
			t.Errorf("n = %g: crossing %+v, want %s L%d also %v", tc.n, c, tc.dir, tc.level, tc.also)
			continue
		}
		if c.Near != (tc.n == 120000) {
			t.Errorf("n = %g: near %v", tc.n, c.Near)
		}
		if s := c.String(); !strings.Contains(s, tc.wantWords) || !strings.Contains(s, "the interval does not account for it") {
			t.Errorf("n = %g: %q lacks %q", tc.n, s, tc.wantWords)
		}
	}
	if x := inL2.Memory.Threshold(1 << 20); x < 125000 || x > 126000 {
		t.Errorf("L2 is reached at n = %g, want (1 MiB − 40 KiB)/8 = 125952", x)
	}
	if note := inL2.MachineNote(testCaches); note != "" {
		t.Errorf("same caches: %q", note)
	}
	other := Caches{Levels: []CacheLevel{{1, 32 << 10}, {2, 256 << 10}, {3, 8 << 20}}, Source: "sysfs"}
	if note := inL2.MachineNote(other); !strings.Contains(note, "L2 1 MiB") || !strings.Contains(note, "L2 256 KiB") {
		t.Errorf("other caches: %q", note)
	}
}

// TestReadCaches: sysfs's index directories (instruction caches left out) and
// getconf's output are read; sizes past MaxCacheBytes are set aside, with a note.
func TestReadCaches(t *testing.T) {
	dir := t.TempDir()
	for i, c := range [][3]string{{"1", "Data", "48K"}, {"1", "Instruction", "32K"}, {"2", "Unified", "1280K"}, {"3", "Unified", "32M"}} {
		d := filepath.Join(dir, "index"+string(rune('0'+i)))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "level"), []byte(c[0]+"\n"), 0o644)
		os.WriteFile(filepath.Join(d, "type"), []byte(c[1]+"\n"), 0o644)
		os.WriteFile(filepath.Join(d, "size"), []byte(c[2]+"\n"), 0o644)
	}
	got := sysfsCaches(dir)
	want := []CacheLevel{{1, 48 << 10}, {2, 1280 << 10}, {3, 32 << 20}}
	if len(got.Levels) != 3 || got.Levels[0] != want[0] || got.Levels[1] != want[1] || got.Levels[2] != want[2] {
		t.Errorf("sysfs: %+v, want %+v", got.Levels, want)
	}
	g := parseGetconf("LEVEL1_ICACHE_SIZE                 32768\nLEVEL1_DCACHE_SIZE                 49152\nLEVEL2_CACHE_SIZE                  1048576\nLEVEL3_CACHE_SIZE                  532676608\nLEVEL4_CACHE_SIZE                  0\n")
	if len(g.Levels) != 3 || g.Levels[0].Bytes != 49152 || g.Levels[2].Bytes != 532676608 {
		t.Errorf("getconf: %+v", g.Levels)
	}
	// readCaches's plausibility rule, on this machine's own figures.
	c := ReadCaches()
	for _, l := range c.Levels {
		if l.Bytes > MaxCacheBytes {
			t.Errorf("L%d of %d bytes kept", l.Level, l.Bytes)
		}
	}
	t.Logf("this machine: %s; notes %q", c, c.Notes)
}

// TestNearCache: the points whose working set lies within ×1.4 of a cache size
// (1.2 MB against a 1 MiB L2) are told apart from the others (100 KB and 8 MB
// against 32 KiB, 1 MiB and 32 MiB), and each group's scatter is mean |t − median|
// / median over its runs: (0 + 0 + 1)/3 for times 1, 1, 2. A point of one run has
// no scatter and is left out; with no point on one side there is nothing to
// compare.
func TestNearCache(t *testing.T) {
	c := Caches{Levels: []CacheLevel{{1, 32 << 10}, {2, 1 << 20}, {3, 32 << 20}}}
	ws := map[int][]float64{1: {1.2e6}, 2: {1.2e6, 1.3e6}, 3: {1e5}, 4: {8e6}, 5: {8e6}}
	times := map[int][]float64{1: {1, 1, 2}, 2: {4, 4, 8}, 3: {10, 10, 10}, 4: {5, 6, 7}, 5: {3}}
	nc := nearCache([]int{1, 2, 3, 4, 5}, ws, times, c)
	if nc == nil {
		t.Fatal("no comparison")
	}
	// Point 4: median 6, (1 + 0 + 1)/3/6 = 1/9; point 3: 0.
	if nc.Points != 2 || nc.Of != 4 || !slices.Equal(nc.Levels, []int{2}) ||
		math.Abs(nc.Scatter-1.0/3) > 1e-12 || math.Abs(nc.OtherScatter-1.0/18) > 1e-12 {
		t.Errorf("got %+v, want 2 of 4 points near L2, scatter 1/3 against 1/18", nc)
	}
	if s := nc.String(); !strings.Contains(s, "train past it") {
		t.Errorf("a scatter 6× the others' is not explained: %s", s)
	}
	if nc := nearCache([]int{1, 2}, ws, times, c); nc != nil {
		t.Errorf("every point near a cache: got %+v, want nil", nc)
	}
}
