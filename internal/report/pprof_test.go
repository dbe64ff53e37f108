package report

import (
	"bytes"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// fn is a function of a test profile: its blocks' counts and calls.
type fn struct {
	name, file string
	counts     []uint64
	calls      [][]string
}

// testProfile builds a profile of the functions fns (no edges: Pprof reads blocks
// and calls only).
func testProfile(fns ...fn) *profile.Profile {
	p := &profile.Profile{Program: &cfg.Program{}, Runs: 1}
	for _, x := range fns {
		file := x.file
		if file == "" {
			file = "t.c"
		}
		f := &cfg.Func{Name: x.name, File: file, Line: 1}
		for i := range x.counts {
			b := f.AddBlock(fmt.Sprint("b", i))
			b.Start = cfg.Pos{File: file, Line: 10*len(p.Program.Funcs) + i + 1}
			b.Instrs = 2
			if i < len(x.calls) {
				b.Calls = x.calls[i]
			}
		}
		p.Program.Funcs = append(p.Program.Funcs, f)
		p.Counts = append(p.Counts, cfg.Counts{Blocks: x.counts, Edges: []uint64{}})
	}
	return p
}

// stacks converts p to pprof, writes and parses it back, and returns the executions
// per stack ("f:31 a:11 main:1", innermost first, frames as function:line). When
// instrs is not 0, every sample's instructions must be instrs × its executions.
func stacks(t *testing.T, p *profile.Profile, instrs int64) map[string]int64 {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePprof(&buf, p); err != nil {
		t.Fatal(err)
	}
	pp, err := pprof.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, s := range pp.Sample {
		var fr []string
		for _, l := range s.Location {
			fr = append(fr, fmt.Sprintf("%s:%d", l.Line[0].Function.Name, l.Line[0].Line))
		}
		if instrs != 0 && s.Value[1] != instrs*s.Value[0] {
			t.Errorf("sample %v: instructions %d for %d executions of %d instructions", fr, s.Value[1], s.Value[0], instrs)
		}
		out[strings.Join(fr, " ")] += s.Value[0]
	}
	return out
}

// flat sums the executions of p's blocks per function, and of the samples' leaves.
func flat(t *testing.T, p *profile.Profile, st map[string]int64) {
	t.Helper()
	want, got := map[string]int64{}, map[string]int64{}
	for i, f := range p.Program.Funcs {
		for _, n := range p.Counts[i].Blocks {
			want[f.Name] += int64(n)
		}
	}
	for k, v := range st {
		got[strings.Split(strings.Fields(k)[0], ":")[0]] += v
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("flat %s = %d, want %d (the blocks' counts)", k, got[k], v)
		}
	}
}

// TestPprofStacks: a function's blocks are split among its call sites in proportion
// to their calls, level by level up the callers; entries no call accounts for stay
// single-frame; recursion goes to the callers from outside the cycle.
func TestPprofStacks(t *testing.T) {
	p := testProfile(
		// Lines: main 1-4, a 11, b 21-22, f 31-32, cb 41, fact 51-52.
		fn{name: "main", counts: []uint64{1, 3, 1, 1}, calls: [][]string{{"a", "printf"}, {"b"}, {"cb"}, {"fact"}}},
		fn{name: "a", counts: []uint64{1}, calls: [][]string{{"f", "f", "f"}}},
		fn{name: "b", counts: []uint64{3, 1}, calls: [][]string{{"f", "f"}, {"f"}}},
		fn{name: "f", counts: []uint64{10, 25}},
		fn{name: "cb", counts: []uint64{5}}, // called once directly, 4 times through a pointer
		fn{name: "fact", counts: []uint64{10, 9}, calls: [][]string{nil, {"fact"}}},
	)
	st := stacks(t, p, 2)
	want := map[string]int64{
		"main:1": 1, "main:2": 3, "main:3": 1, "main:4": 1,
		"a:11 main:1":      1,
		"b:21 main:2":      3,
		"b:22 main:2":      1,
		"f:31 a:11 main:1": 3, // 10 entries: 3 calls from a, 6 + 1 from b
		"f:31 b:21 main:2": 6,
		"f:31 b:22 main:2": 1,
		"f:32 a:11 main:1": 8, // 25 × 3/10 = 7.5, 25 × 1/10 = 2.5: the first tie gets the unit
		"f:32 b:21 main:2": 15,
		"f:32 b:22 main:2": 2,
		"cb:41 main:3":     1,
		"cb:41":            4,
		"fact:51 main:4":   10, // the 9 recursive calls go to main's one
		"fact:52 main:4":   9,
	}
	if len(st) != len(want) {
		t.Errorf("%d stacks, want %d:\n%v", len(st), len(want), st)
	}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("stack %q: %d executions, want %d", k, st[k], v)
		}
	}
	flat(t, p, st)
}

// TestPprofOldProfiles: profiles written before calls were recorded (formats 1.0 and
// 1.1) export as before: one single-frame sample per executed block.
func TestPprofOldProfiles(t *testing.T) {
	for _, name := range []string{"small-v1.0.fpp", "small-v1.1.fpp"} {
		p, err := profile.ParseFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pp, err := Pprof(p)
		if err != nil {
			t.Fatal(err)
		}
		executed := 0
		for _, c := range p.Counts {
			for _, n := range c.Blocks {
				if n > 0 {
					executed++
				}
			}
		}
		if len(pp.Sample) != executed {
			t.Errorf("%s: %d samples for %d executed blocks", name, len(pp.Sample), executed)
		}
		for _, s := range pp.Sample {
			if len(s.Location) != 1 {
				t.Errorf("%s: a sample with %d frames", name, len(s.Location))
			}
		}
		flat(t, p, stacks(t, p, 0))
	}
}

// TestPprofStaticNames: a call resolves to the function of that name in the caller's
// file when several files define one.
func TestPprofStaticNames(t *testing.T) {
	p := testProfile(
		fn{name: "main", file: "x.c", counts: []uint64{1}, calls: [][]string{{"run"}}},
		fn{name: "helper", file: "x.c", counts: []uint64{2}},
		fn{name: "run", file: "y.c", counts: []uint64{1}, calls: [][]string{{"helper"}}},
		fn{name: "helper", file: "y.c", counts: []uint64{1}},
	)
	st := stacks(t, p, 2)
	if st["helper:31 run:21 main:1"] != 1 || st["helper:11"] != 2 {
		t.Errorf("stacks %v", st)
	}
}

// TestPprofLimits: stacks stop at maxCallers callers, and a function with many paths
// up its callers gets at most maxStacks of them (but all its direct callers).
func TestPprofLimits(t *testing.T) {
	var chain []fn
	for i := 0; i < 10; i++ {
		f := fn{name: fmt.Sprint("c", i), counts: []uint64{1}}
		if i > 0 {
			f.calls = [][]string{{fmt.Sprint("c", i-1)}}
		}
		chain = append(chain, f)
	}
	for k, v := range stacks(t, testProfile(chain...), 2) {
		if strings.HasPrefix(k, "c0:") && (len(strings.Fields(k)) != 1+maxCallers || v != 1) {
			t.Errorf("c0's stack %q (%d): want %d frames", k, v, 1+maxCallers)
		}
	}
	// leaf ← 80 middles ← 3 tops each: 80 direct callers, 240 paths at depth 2.
	fns := []fn{{name: "leaf", counts: []uint64{80 * 3}}}
	for i := 0; i < 80; i++ {
		fns = append(fns, fn{name: fmt.Sprint("m", i), counts: []uint64{3}, calls: [][]string{{"leaf"}}})
	}
	for j := 0; j < 3; j++ {
		top := fn{name: fmt.Sprint("t", j), counts: []uint64{1}, calls: [][]string{nil}}
		for i := 0; i < 80; i++ {
			top.calls[0] = append(top.calls[0], fmt.Sprint("m", i))
		}
		fns = append(fns, top)
	}
	p := testProfile(fns...)
	st := stacks(t, p, 2)
	n := 0
	for k, v := range st {
		if strings.HasPrefix(k, "leaf:") {
			n++
			if len(strings.Fields(k)) != 2 || v != 3 {
				t.Errorf("leaf's stack %q (%d): want its direct caller only, 3 executions", k, v)
			}
		}
	}
	if n != 80 {
		t.Errorf("leaf has %d stacks, want 80", n)
	}
	flat(t, p, st)
}

// TestApportion: the parts add up, are within one of the exact share, and follow the
// largest remainders; huge weights do not overflow.
func TestApportion(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 2000; iter++ {
		w := make([]uint64, 1+rng.Intn(6))
		var total uint64
		for i := range w {
			w[i] = uint64(rng.Intn(100))
			total += w[i]
		}
		if total == 0 {
			w[0], total = 1, 1
		}
		n := uint64(rng.Intn(1000))
		ws := append([]uint64(nil), w...)
		parts := apportion(n, ws)
		var sum uint64
		for i, p := range parts {
			sum += p
			exact := float64(n) * float64(w[i]) / float64(total)
			if float64(p) < exact-1 || float64(p) > exact+1 {
				t.Fatalf("apportion(%d, %v) = %v: part %d far from %g", n, w, parts, i, exact)
			}
		}
		if sum != n {
			t.Fatalf("apportion(%d, %v) = %v sums to %d", n, w, parts, sum)
		}
	}
	if got := apportion(10, []uint64{1, 2, 1}); fmt.Sprint(got) != "[3 5 2]" {
		t.Errorf("apportion(10, 1 2 1) = %v, want [3 5 2] (the first of equal remainders)", got)
	}
	big := apportion(1<<63, []uint64{1 << 63, 1 << 63, 1 << 62})
	if big[0]+big[1]+big[2] != 1<<63 || big[0] != big[1] || big[0]/2-big[2]+1 > 2 {
		t.Errorf("apportion with overflowing weights = %v", big)
	}
	if got := apportion(7, []uint64{0, 5, 0}); fmt.Sprint(got) != "[0 7 0]" {
		t.Errorf("apportion(7, 0 5 0) = %v", got)
	}
}
