//go:build integration

package main

import (
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// chooserDecision is a line "decide K workers t serial_ns parallel_ns
// overhead_ns efficiency explore" of testdata/capi/chooser.c.
type chooserDecision struct {
	k, workers                 int
	t, serial, parallel, effic float64
}

// chooserOutput runs chooser.c in a mode and parses its decisions, its
// measured medians (K → serial, parallel) and its other lines (key → fields).
func chooserOutput(t *testing.T, bin, fpm, mode string) ([]chooserDecision, map[int][2]float64, map[string][]string) {
	t.Helper()
	out, err := exec.Command(bin, fpm, mode).CombinedOutput()
	if err != nil {
		t.Fatalf("chooser %s: %v\n%s", mode, err, out)
	}
	var ds []chooserDecision
	measured, other := map[int][2]float64{}, map[string][]string{}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("chooser %s: %q is not a number\n%s", mode, s, out)
		}
		return x
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		switch {
		case f[0] == "decide" && len(f) == 9:
			ds = append(ds, chooserDecision{int(num(f[1])), int(num(f[2])), num(f[3]), num(f[4]), num(f[5]), num(f[7])})
		case f[0] == "measured" && len(f) == 4:
			measured[int(num(f[1]))] = [2]float64{num(f[2]), num(f[3])}
		default:
			other[f[0]] = f[1:]
		}
	}
	return ds, measured, other
}

// octave is the chooser's octave of a predicted time (fragprof_model.h).
func octave(t float64) int {
	if t < 2 {
		return 0
	}
	return min(math.Ilogb(t), 63)
}

// nearestOctave is the octave among have nearest to b, the larger of two as near.
func nearestOctave(b int, have map[int]bool) int {
	best := -1
	for o := range have {
		d, bd := abs(o-b), abs(best-b)
		if best < 0 || d < bd || (d == bd && o > best) {
			best = o
		}
	}
	return best
}

// median is the median of xs (the mean of the middle two for an even count), as
// the model library's chooser takes it.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestModelChooser checks fp_model_chooser on a model of the Brusselator:
// its rule on given times (serially T = t, on 2 workers T = 50 µs + t/2; each
// decision, the expected times and the first re-measurement exactly as the
// header's rule says), and on real sweeps — with the process pinned to one CPU
// (the second core taken away: a real, measured parallel efficiency of about
// one half) and free — that every decision follows the measurements: at each
// K of the warm-up, alone in its octave, the chooser prefers the way whose
// median time was the shorter, and beyond the warm-up (K = 200 to 800) it
// prefers what it prefers at the largest K measured.
func TestModelChooser(t *testing.T) {
	dir := t.TempDir()
	_, fpm := bruModel(t, dir)
	bin := filepath.Join(dir, "chooser")
	capiBuild(t, "cc", "-O2", "-Wall", "-Werror", "-I", dir, filepath.Join("testdata", "capi", "chooser.c"),
		filepath.Join(dir, "libfragprof_model.a"), "-lm", "-pthread", "-o", bin)

	t.Run("rule", func(t *testing.T) {
		ds, _, other := chooserOutput(t, bin, fpm, "rule")
		warm := map[int]bool{1: true, 2: true, 4: true, 8: true, 16: true, 32: true, 64: true, 128: true}
		// octave → the ratios T_p/t recorded there, in the order of the calls
		// (the warm-up twice over), of which the chooser keeps the last 8 and
		// takes their median: two warm-up Ks may share an octave.
		rec := map[int][]float64{}
		byK := map[int]chooserDecision{}
		for _, d := range ds {
			byK[d.k] = d
		}
		for r := 0; r < 2; r++ {
			for _, d := range ds {
				if warm[d.k] {
					o := octave(d.t)
					rec[o] = append(rec[o], (50000+d.t/2)/d.t)
				}
			}
		}
		ratio := map[int]float64{}
		for o, rs := range rec {
			ratio[o] = median(rs[max(0, len(rs)-8):])
		}
		if len(byK) != 15 || len(ratio) < 6 {
			t.Fatalf("decisions %d, octaves of the warm-up %d", len(byK), len(ratio))
		}
		have := map[int]bool{}
		for o := range ratio {
			have[o] = true
		}
		for _, d := range ds {
			rp := ratio[nearestOctave(octave(d.t), have)]
			wantP, wantW := rp*d.t, 1
			if wantP < d.t {
				wantW = 2
			}
			if !sameNumber(d.serial, d.t) || math.Abs(d.parallel-wantP) > 1e-9*wantP || d.workers != wantW {
				t.Errorf("K = %d (t %.0f): serial %.6g parallel %.6g workers %d, want %.6g %.6g %d", d.k, d.t, d.serial, d.parallel, d.workers, d.t, wantP, wantW)
			}
		}
		if byK[1].workers != 1 || byK[800].workers != 2 {
			t.Errorf("K = 1 on %d workers, K = 800 on %d: want 1 and 2", byK[1].workers, byK[800].workers)
		}
		// Serial calls of 1 µs at K = 1: 2 workers are re-measured at the first
		// call after calls of T_p/ε = T_p/0.02 in all.
		ex := other["explore_after"]
		if len(ex) != 3 || ex[2] != "2" {
			t.Fatalf("explore_after: %q", ex)
		}
		calls, _ := strconv.Atoi(ex[0])
		tp, _ := strconv.ParseFloat(ex[1], 64)
		if want := int(math.Ceil(tp / 0.02 / 1000)); calls != want || !sameNumber(tp, byK[1].parallel) {
			t.Errorf("re-measured after %d calls at T_p %v, want %d at %v", calls, tp, want, byK[1].parallel)
		}
	})

	for _, mode := range []string{"pinned", "free"} {
		t.Run(mode, func(t *testing.T) {
			ds, measured, _ := chooserOutput(t, bin, fpm, mode)
			perOctave := map[int]int{}
			for _, d := range ds {
				if _, ok := measured[d.k]; ok {
					perOctave[octave(d.t)]++
				}
			}
			var largest chooserDecision
			checked := 0
			for _, d := range ds {
				m, ok := measured[d.k]
				switch {
				case ok && perOctave[octave(d.t)] == 1:
					checked++
					if want := map[bool]int{true: 2, false: 1}[m[1] < m[0]]; d.workers != want {
						t.Errorf("K = %d: measured serial %.0f ns, on 2 threads %.0f ns; the chooser prefers %d workers", d.k, m[0], m[1], d.workers)
					}
					largest = d
				case d.k > 128 && d.workers != largest.workers:
					t.Errorf("K = %d: %d workers, at K = %d (measured, the nearest octave) %d", d.k, d.workers, largest.k, largest.workers)
				}
				t.Logf("K %3d: %d workers, expected serial %.3g ns, parallel %.3g ns, efficiency %.2f", d.k, d.workers, d.serial, d.parallel, d.effic)
			}
			if checked < 6 || largest.k != 128 {
				t.Errorf("%d warm-up K alone in their octave, the largest %d: want 6 or more, and 128", checked, largest.k)
			}
		})
	}
}
