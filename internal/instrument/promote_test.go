//go:build integration

package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// promoteC has a loop whose counters sit on conditional edges (the chords of the
// branch), which LLVM cannot keep in registers by itself: it may not introduce a
// store on a path that had none.
const promoteC = `
int count_pos(const int *a, int n) {
	int pos = 0;
	for (int i = 0; i < n; i++) {
		if (a[i] > 0)
			pos++;
		else
			pos += 2;
	}
	return pos;
}
`

// helperC calls a static leaf helper, with a branch of its own, in a loop and once
// outside it: once inlined, the helper's counters sit on conditional paths of the
// caller's loop, which promotion alone cannot reach (helpers.go).
const helperC = `
static int clamp_add(int a, int b) {
	if (a > 1000 - b)
		return 1000;
	return a + b;
}
int sum_clamped(const int *x, int n) {
	int s = clamp_add(0, n);
	for (int i = 0; i < n; i++)
		s = clamp_add(s, x[i]) - 999;
	return s;
}
`

// TestPromotion checks, on the code clang -O2 makes of the instrumented IR (clang 14,
// 16 and 19), that with promotion no counter is stored inside a loop of count_pos,
// nor of sum_clamped, whose loop calls a leaf helper; that without promotion one
// is, and without the helpers' counters handed to the loop one is in sum_clamped
// (so that the checks can fail).
func TestPromotion(t *testing.T) {
	for _, c := range []struct {
		name, src, fn string
		helpers       bool
	}{
		{"count_pos", promoteC, "count_pos", true},
		{"helper", helperC, "sum_clamped", true},
		{"helper-off", helperC, "sum_clamped", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			testPromotion(t, c.src, c.fn, c.helpers)
		})
	}
}

func testPromotion(t *testing.T, code, fn string, helpers bool) {
	defer func(on bool) { helpersOn = on }(helpersOn)
	helpersOn = helpers
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, clang := range []string{"clang-14", "clang-16", "clang-19"} {
		if _, err := exec.LookPath(clang); err != nil {
			t.Fatalf("%s is needed: %v", clang, err)
		}
		ll := filepath.Join(dir, clang+".ll")
		cmd := exec.Command(clang, "-O2", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", "-g", src, "-o", ll)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", clang, err, msg)
		}
		for _, promote := range []bool{false, true} {
			data, _ := os.ReadFile(ll)
			m, err := llvmir.Parse(ll, data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Module(m, Options{Scheme: Chords, Promote: promote, Source: src}); err != nil {
				t.Fatal(err)
			}
			in, out := filepath.Join(dir, "in.ll"), filepath.Join(dir, "out.ll")
			os.WriteFile(in, m.Bytes(), 0o644)
			cmd := exec.Command(clang, "-O2", "-S", "-emit-llvm", "-x", "ir", in, "-o", out, "-Wno-override-module")
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s rejects the instrumented IR (promote=%v): %v\n%s", clang, promote, err, msg)
			}
			inLoop := countersStoredInLoops(t, out, fn)
			switch {
			case promote && helpers && inLoop > 0:
				t.Errorf("%s: with promotion, %d counter stores stay inside loops of %s", clang, inLoop, fn)
			case promote && !helpers && inLoop == 0 && clang != "clang-19":
				// (clang 19 keeps this small helper's counters out of the loop by
				// itself; clang 14, the default, and 16 do not.)
				t.Errorf("%s: without the helper's counters handed to the loop, no counter store is inside it: the check proves nothing", clang)
			case !promote && inLoop == 0:
				t.Errorf("%s: without promotion no counter store is inside a loop: the check proves nothing", clang)
			}
		}
	}
}

// countersStoredInLoops parses the optimised IR at file and counts the stores to
// @__fragprof.ctr in the blocks of fn's loops.
func countersStoredInLoops(t *testing.T, file, fn string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := llvmir.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range m.Funcs {
		if f.Name != fn {
			continue
		}
		g := m.CFG(f)
		loops := g.FindLoops()
		if len(loops.Loops) == 0 {
			t.Fatalf("%s: the optimised %s has no loop left", file, fn)
		}
		for _, b := range g.Blocks {
			if loops.Innermost[b.ID] == nil {
				continue
			}
			for _, in := range f.Blocks[b.ID].Instrs {
				if l := m.Lines[in.Line]; in.Op == "store" && strings.Contains(l, "@__fragprof.ctr") {
					n++
				}
			}
		}
		return n
	}
	t.Fatalf("%s: no function %s", file, fn)
	return 0
}
