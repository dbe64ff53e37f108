// This file models the working set — the bytes of data a run touches — against the
// data caches of the machine the model was built on, so that a
// prediction whose working set leaves a cache level every training run fit in (or
// fits one no training run fit in) says so, and claims no confidence level for an
// interval that cannot see the change of cost.

package predict

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/predict/regress"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/textout"
	"github.com/fragprof/fragprof/internal/trace"
)

// Memory is the working-set model of a program, stored in the model file.
//
// The working set of a run is trace.WorkingSet: the anonymous memory at its peak
// less what the process had before main (the runtime's END record). Per training
// input point, the median over its runs; Fit is the power law ws = a + b·x^k of the
// best input, k ∈ {1, 2, 3} (regress.FitPowerLawOf: relative least squares, the
// input and k of the lowest 10-fold cross-validated MAPE), in bytes. The exponent
// is an integer because arrays are products of sizes; fitted freely over a 3×
// range, the offset a (the program's stack and buffers, tens of KB) and k trade
// off — n^0.32 fitted the sweep kernel's 92–188 KiB as well as 8·n + 38 KiB did,
// and was 12× short at 90× the size.
type Memory struct {
	Fit *regress.PowerLaw `json:"fit"`
	// Points is the number of training input points with a working set; MinBytes
	// and MaxBytes the smallest and the largest of their working sets.
	Points   int     `json:"points"`
	MinBytes float64 `json:"min_bytes"`
	MaxBytes float64 `json:"max_bytes"`
	// Caches are the data caches of the machine the model was built on.
	Caches Caches `json:"caches"`
	// NearCache compares the run-to-run scatter of the training points whose
	// working set lies near a cache level's size with the others' (nil when no
	// point, or every point, lies near one).
	NearCache *NearCache `json:"near_cache,omitempty"`
}

// NearBand is how near a cache level's size a working set lies to count as near
// it: within a factor of 1.4 either way. There a run's time can be unsteady from
// one process to the next: in one protocol run gemm's training points at n ≈
// 190–240 (0.85–1.4 MB against a 1 MiB L2) scattered 14.5% around their medians,
// those above 4.65% (bench/predict.sh). The comparison is made on the model's
// own runs, and the advice given only when they show it.
const NearBand = 1.4

// NearCache is the scatter of the training points near a cache level's size.
type NearCache struct {
	// Levels are the cache levels some training point lies near; Points how
	// many points do, of Of with two or more runs.
	Levels []int `json:"levels"`
	Points int   `json:"points"`
	Of     int   `json:"of"`
	// Scatter and OtherScatter are the mean over those points, and over the
	// others, of one run's relative distance from its point's median time
	// (mean |t − median| / median, as the evaluation's truth_scatter).
	Scatter      float64 `json:"scatter"`
	OtherScatter float64 `json:"other_scatter"`
}

// Caches describes the data caches of a machine (its cpu0's).
type Caches struct {
	// Levels are the data or unified caches, by level; a level whose size could
	// not be read, or was set aside as implausible, has Bytes 0.
	Levels []CacheLevel `json:"levels"`
	// Source says where the sizes came from: "sysfs"
	// (/sys/devices/system/cpu/cpu0/cache/index*), "getconf" (glibc's sysconf
	// _SC_LEVEL*_CACHE_SIZE, from CPUID), or "none".
	Source string `json:"source"`
	// Notes says what was set aside, and why.
	Notes []string `json:"notes,omitempty"`
}

// A CacheLevel is one level of data cache.
type CacheLevel struct {
	Level int   `json:"level"`
	Bytes int64 `json:"bytes"` // 0: unknown
}

// MaxCacheBytes bounds a plausible cache size: a larger one is taken as unknown.
// getconf reports a 508 MiB L3 on the test VM (a figure of the host, not of the
// slice the VM gets); the largest cache a core shares today, AMD's stacked L3, is
// 96 MiB per core complex.
const MaxCacheBytes = 256 << 20

// ReadCaches reads the data caches of this machine, once; tests replace it.
var ReadCaches = sync.OnceValue(readCaches)

// readCaches reads the cache sizes from sysfs when it lists them, else from
// `getconf -a` (glibc's sysconf, which asks CPUID), and sets aside sizes of 0 or
// above MaxCacheBytes.
func readCaches() Caches {
	c := sysfsCaches("/sys/devices/system/cpu/cpu0/cache")
	if len(c.Levels) == 0 {
		if out, err := exec.Command("getconf", "-a").Output(); err == nil {
			c = parseGetconf(string(out))
		}
	}
	if len(c.Levels) == 0 {
		return Caches{Source: "none", Notes: []string{"no cache sizes in sysfs or getconf"}}
	}
	for i := range c.Levels {
		l := &c.Levels[i]
		if l.Bytes > MaxCacheBytes {
			c.Notes = append(c.Notes, fmt.Sprintf("L%d size %s (%s) set aside as implausible (over %s: a virtual machine's figure for its host): unknown",
				l.Level, textout.Bytes(float64(l.Bytes)), c.Source, textout.Bytes(MaxCacheBytes)))
			l.Bytes = 0
		}
	}
	return c
}

// sysfsCaches reads dir/index*/{level,type,size}, keeping data and unified caches
// ("48K", "1024K", "32M").
func sysfsCaches(dir string) Caches {
	c := Caches{Source: "sysfs"}
	idx, _ := filepath.Glob(filepath.Join(dir, "index*"))
	byLevel := map[int]int64{}
	for _, d := range idx {
		read := func(f string) string {
			b, _ := os.ReadFile(filepath.Join(d, f))
			return strings.TrimSpace(string(b))
		}
		if read("type") == "Instruction" {
			continue
		}
		lv, err := strconv.Atoi(read("level"))
		size := parseCacheSize(read("size"))
		if err != nil || lv < 1 {
			continue
		}
		byLevel[lv] = max(byLevel[lv], size)
	}
	c.Levels = levelsOf(byLevel)
	return c
}

// parseCacheSize reads sysfs's "48K", "1024K", "32M" (or plain bytes); 0 when bad.
func parseCacheSize(s string) int64 {
	mul := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mul, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mul, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mul, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v * mul
}

// parseGetconf reads LEVEL1_DCACHE_SIZE, LEVEL2_CACHE_SIZE, LEVEL3_CACHE_SIZE and
// LEVEL4_CACHE_SIZE from the output of `getconf -a`; absent or 0 sizes are left out.
func parseGetconf(out string) Caches {
	c := Caches{Source: "getconf"}
	keys := map[string]int{"LEVEL1_DCACHE_SIZE": 1, "LEVEL2_CACHE_SIZE": 2, "LEVEL3_CACHE_SIZE": 3, "LEVEL4_CACHE_SIZE": 4}
	byLevel := map[int]int64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if lv, ok := keys[f[0]]; ok {
			if v, err := strconv.ParseInt(f[1], 10, 64); err == nil && v > 0 {
				byLevel[lv] = v
			}
		}
	}
	c.Levels = levelsOf(byLevel)
	return c
}

func levelsOf(byLevel map[int]int64) []CacheLevel {
	var out []CacheLevel
	for lv, b := range byLevel {
		out = append(out, CacheLevel{Level: lv, Bytes: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}

// String prints "L1 48 KiB, L2 1 MiB, L3 unknown (getconf)".
func (c Caches) String() string {
	if len(c.Levels) == 0 {
		return "unknown"
	}
	var parts []string
	for _, l := range c.Levels {
		size := "unknown"
		if l.Bytes > 0 {
			size = textout.Bytes(float64(l.Bytes))
		}
		parts = append(parts, fmt.Sprintf("L%d %s", l.Level, size))
	}
	return strings.Join(parts, ", ") + " (" + c.Source + ")"
}

// Same reports whether two machines' known cache sizes agree level by level.
func (c Caches) Same(o Caches) bool {
	if len(c.Levels) != len(o.Levels) {
		return false
	}
	for i := range c.Levels {
		if c.Levels[i] != o.Levels[i] {
			return false
		}
	}
	return true
}

// fitMemory fits the working set of the traces' input points (graph.InputPoints:
// a point's runs are its repetitions) as a power law of the model's inputs, and
// reads the machine's caches. It returns nil when fewer than 3 points have a
// working set (traces of an older runtime) or no input varies.
func fitMemory(traces []*trace.Trace, inputs []string) *Memory {
	point := graph.InputPoints(traces)
	byPoint := map[int][]float64{}
	times := map[int][]float64{}
	first := map[int]*trace.Trace{}
	var order []int
	for i, t := range traces {
		ws, ok := t.WorkingSet()
		if !ok {
			continue
		}
		if _, seen := first[point[i]]; !seen {
			first[point[i]] = t
			order = append(order, point[i])
		}
		byPoint[point[i]] = append(byPoint[point[i]], ws)
		if th := t.Main(); th != nil && th.Len() > 1 {
			times[point[i]] = append(times[point[i]], float64(th.Span()))
		}
	}
	if len(order) < 3 {
		return nil
	}
	mem := &Memory{Points: len(order), MinBytes: math.Inf(1)}
	var X [][]float64
	var y []float64
	for _, pt := range order {
		row := make([]float64, len(inputs))
		for k, name := range inputs {
			row[k], _ = first[pt].Input(name)
		}
		ws := stats.Median(byPoint[pt])
		X = append(X, row)
		y = append(y, ws)
		mem.MinBytes, mem.MaxBytes = math.Min(mem.MinBytes, ws), math.Max(mem.MaxBytes, ws)
	}
	if mem.Fit = regress.FitPowerLawOf(inputs, X, y, []float64{1, 2, 3}); mem.Fit == nil {
		return nil
	}
	mem.Caches = ReadCaches()
	mem.NearCache = nearCache(order, byPoint, times, mem.Caches)
	return mem
}

// nearCache sorts the points with two or more runs into those whose median
// working set lies within NearBand of a known cache size and the others, and
// returns both groups' mean scatter; nil when either group is empty.
func nearCache(order []int, ws, times map[int][]float64, c Caches) *NearCache {
	nc := &NearCache{}
	var near, other []float64
	for _, pt := range order {
		ts := times[pt]
		if len(ts) < 2 {
			continue
		}
		nc.Of++
		med := stats.Median(ts)
		var sc float64
		for _, t := range ts {
			sc += math.Abs(t-med) / med / float64(len(ts))
		}
		w, at := stats.Median(ws[pt]), 0
		for _, l := range c.Levels {
			if b := float64(l.Bytes); b > 0 && w > b/NearBand && w < b*NearBand {
				at = l.Level
			}
		}
		if at == 0 {
			other = append(other, sc)
			continue
		}
		near = append(near, sc)
		if !slices.Contains(nc.Levels, at) {
			nc.Levels = append(nc.Levels, at)
		}
	}
	if len(near) == 0 || len(other) == 0 {
		return nil
	}
	nc.Points = len(near)
	nc.Scatter, _ = stats.MeanSD(near)
	nc.OtherScatter, _ = stats.MeanSD(other)
	return nc
}

// String says how much noisier the points near a cache level's size are.
func (nc *NearCache) String() string {
	levels := make([]string, len(nc.Levels))
	for i, l := range nc.Levels {
		levels[i] = fmt.Sprintf("L%d", l)
	}
	s := fmt.Sprintf("%d of %d training inputs have a working set within ×%.1f of the size of %s: one of their runs lies %.3g%% from its input's median on average, the others' %.3g%%",
		nc.Points, nc.Of, NearBand, strings.Join(levels, " and "), 100*nc.Scatter, 100*nc.OtherScatter)
	if nc.Scatter >= 2*nc.OtherScatter {
		s += ": near a cache's size the times are less steady — train past it"
	}
	return s
}

// A CacheCrossing is a cache level between the working sets of the training runs
// and the one predicted for an input: the time per operation the model learnt
// belongs to one side of it, the prediction to the other.
type CacheCrossing struct {
	// Level and CacheBytes name the level crossed: for "beyond", the smallest
	// level every training run fit in, which the predicted working set exceeds;
	// for "within", the largest level no training run fit in, which it fits.
	Level      int   `json:"level"`
	CacheBytes int64 `json:"cache_bytes"`
	// Direction is "beyond" (the time per operation is likely to rise) or
	// "within" (likely to fall).
	Direction string `json:"direction"`
	// Near says the predicted working set is not past the level's size but within
	// NearBand of it, where every training run was well inside ("beyond" only).
	Near bool `json:"near,omitempty"`
	// Also lists the further levels crossed the same way (beyond L1 and L2).
	Also []int `json:"also_levels,omitempty"`
	// Input and Value are the input the working set is a function of and its value.
	Input string  `json:"input"`
	Value float64 `json:"value"`
	// WorkingSet is the predicted working set; TrainMin and TrainMax the training
	// points' smallest and largest.
	WorkingSet float64 `json:"working_set_bytes"`
	TrainMin   float64 `json:"train_min_bytes"`
	TrainMax   float64 `json:"train_max_bytes"`
}

// WorkingSet predicts the working set (bytes) at the inputs in (model order); NaN
// without a working-set model.
func (m *Model) WorkingSet(in []float64) float64 {
	if m.Memory == nil || m.Memory.Fit == nil {
		return math.NaN()
	}
	return m.Memory.Fit.Eval(in)
}

// edge is where a working set starts to leave a cache of the given size for the
// training runs: size/NearBand when they all fit within it (a working set near a
// cache's size already misses in it: lu at 27–31 MB ran 1.2–1.8× its training
// time per operation under a 32 MiB L3), else the size itself.
func (mem *Memory) edge(size float64) float64 {
	if mem.MaxBytes <= size/NearBand {
		return size / NearBand
	}
	return size
}

// cacheCrossing compares the predicted working set at in with the training
// points' against the model's known cache sizes (ascending by level). Beyond: L is
// the smallest level with MaxBytes ≤ size(L), crossed when ws > edge(size(L)) —
// Near when ws ≤ size(L). Within:
// L is the largest level with MinBytes > size(L), crossed when ws ≤ size(L). It
// returns nil when nothing is crossed.
func (m *Model) cacheCrossing(in []float64) *CacheCrossing {
	ws := m.WorkingSet(in)
	if math.IsNaN(ws) || math.IsInf(ws, 0) || ws <= 0 {
		return nil
	}
	mem := m.Memory
	var known []CacheLevel
	for _, l := range mem.Caches.Levels {
		if l.Bytes > 0 {
			known = append(known, l)
		}
	}
	c := &CacheCrossing{Input: mem.Fit.Input, Value: in[slices.Index(m.Inputs, mem.Fit.Input)], WorkingSet: ws,
		TrainMin: mem.MinBytes, TrainMax: mem.MaxBytes}
	for i, l := range known {
		if size := float64(l.Bytes); mem.MaxBytes <= size {
			if ws <= mem.edge(size) {
				break
			}
			c.Level, c.CacheBytes, c.Direction, c.Near = l.Level, l.Bytes, "beyond", ws <= size
			for _, o := range known[i+1:] {
				if ws > float64(o.Bytes) {
					c.Also = append(c.Also, o.Level)
				}
			}
			return c
		}
	}
	for i := len(known) - 1; i >= 0; i-- {
		l := known[i]
		if mem.MinBytes > float64(l.Bytes) {
			if ws > float64(l.Bytes) {
				break
			}
			c.Level, c.CacheBytes, c.Direction = l.Level, l.Bytes, "within"
			for j := i - 1; j >= 0; j-- {
				if ws <= float64(known[j].Bytes) {
					c.Also = append(c.Also, known[j].Level)
				}
			}
			return c
		}
	}
	return nil
}

// String says what the crossing means, plainly.
func (c *CacheCrossing) String() string {
	also := ""
	for _, l := range c.Also {
		also += fmt.Sprintf(" and L%d", l)
	}
	train := fmt.Sprintf("the training runs' %s … %s", textout.Bytes(c.TrainMin), textout.Bytes(c.TrainMax))
	if c.Direction == "within" {
		return fmt.Sprintf("at %s = %g the working set is about %s, inside the %s L%d%s that no training run fit in (%s): "+
			"the time per operation is likely to fall; the interval does not account for it — train with inputs under %s to see the slope",
			c.Input, c.Value, textout.Bytes(c.WorkingSet), textout.Bytes(float64(c.CacheBytes)), c.Level, also, train, textout.Bytes(float64(c.CacheBytes)))
	}
	if c.Near {
		return fmt.Sprintf("at %s = %g the working set is about %s, within ×%.1f of the %s L%d that every training run fit well inside (%s): "+
			"the time per operation may already rise; the interval does not account for it — train with inputs past %s to see the slope",
			c.Input, c.Value, textout.Bytes(c.WorkingSet), NearBand, textout.Bytes(float64(c.CacheBytes)), c.Level, train, textout.Bytes(float64(c.CacheBytes)/NearBand))
	}
	return fmt.Sprintf("at %s = %g the working set is about %s, beyond the %s L%d%s that every training run fit in (%s): "+
		"the time per operation is likely to rise; the interval does not account for it — train with inputs past %s to see the slope",
		c.Input, c.Value, textout.Bytes(c.WorkingSet), textout.Bytes(float64(c.CacheBytes)), c.Level, also, train, textout.Bytes(float64(c.CacheBytes)))
}

// Threshold returns the value of the fit's input at which the working set reaches
// bytes (the power law inverted: x = ((bytes − a)/b)^(1/k)), or NaN.
func (mem *Memory) Threshold(bytes float64) float64 {
	f := mem.Fit
	if f == nil || f.B <= 0 || f.K <= 0 || bytes <= f.A {
		return math.NaN()
	}
	return math.Pow((bytes-f.A)/f.B, 1/f.K)
}

// Breaks returns the known breakpoints of the working-set model: for each cache
// level of known size, the value of the fit's input at which the working set
// reaches it (Threshold). The segmented law tries them beside the training inputs,
// so that its slope can change where the data leaves a cache level.
func (mem *Memory) Breaks() []regress.Break {
	var out []regress.Break
	for _, l := range mem.Caches.Levels {
		if x := mem.Threshold(float64(l.Bytes)); l.Bytes > 0 && x > 0 && !math.IsInf(x, 0) {
			out = append(out, regress.Break{Input: mem.Fit.Input, X: x, Level: l.Level})
		}
	}
	return out
}

// Describe prints the working-set model for model show: the fit, the training
// span against the caches, and the inputs at which a prediction leaves the cache
// level every training run fit in.
func (mem *Memory) Describe() []string {
	out := []string{fmt.Sprintf("working set: %s bytes (cross-validated MAPE %.3g%%, %d training inputs: %s … %s)",
		mem.Fit.String(), 100*mem.Fit.CVMAPE, mem.Points, textout.Bytes(mem.MinBytes), textout.Bytes(mem.MaxBytes))}
	out = append(out, "caches of the machine the model was built on: "+mem.Caches.String())
	for _, n := range mem.Caches.Notes {
		out = append(out, "  note: "+n)
	}
	if nc := mem.NearCache; nc != nil {
		out = append(out, "  "+nc.String())
	}
	for _, l := range mem.Caches.Levels {
		if l.Bytes <= 0 || mem.MaxBytes > float64(l.Bytes) {
			continue
		}
		what := fmt.Sprintf("every training run fit in the %s L%d", textout.Bytes(float64(l.Bytes)), l.Level)
		edge, leaves := mem.edge(float64(l.Bytes)), "leaves it"
		if edge < float64(l.Bytes) {
			leaves = fmt.Sprintf("comes within ×%.1f of its size", NearBand)
		}
		if x := mem.Threshold(edge); !math.IsNaN(x) {
			out = append(out, fmt.Sprintf("  %s: from $%s ≈ %.4g on the working set %s and the predictions' intervals claim no level (the time per operation is likely to rise)",
				what, mem.Fit.Input, x, leaves))
		} else {
			out = append(out, "  "+what)
		}
		break
	}
	return out
}

// MachineNote compares the caches of the machine the model was built on with
// here's, and says so when they differ: the model's times, and the cache levels
// it warns about, are the other machine's. "" when they agree or the model has no
// caches.
func (m *Model) MachineNote(here Caches) string {
	if m.Memory == nil || m.Memory.Caches.Same(here) {
		return ""
	}
	return fmt.Sprintf("the model was built on a machine with caches %s; this one has %s: its times and cache levels are the other machine's",
		m.Memory.Caches, here)
}
