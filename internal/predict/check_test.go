package predict

import (
	"math"
	"testing"
)

// TestCheckPValue: the conformal p-value (1 + #{s_r ≥ s}) / (R + 1), the
// limit beyond which a score is flagged at α, and the scores of a set of
// runs, against values worked by hand.
func TestCheckPValue(t *testing.T) {
	// d = 0.1, 0.3, 0.6, 1.0, 1.5: median 0.6, scores 0, 0.3, 0.4, 0.5, 0.9.
	a := spreadOf([]float64{1.0, 0.1, 1.5, 0.6, 0.3})
	if a.Runs != 5 || a.Center != 0.6 {
		t.Fatalf("runs %d, center %v; want 5 and 0.6", a.Runs, a.Center)
	}
	want := []float64{0, 0.3, 0.4, 0.5, 0.9}
	for i, w := range want {
		if math.Abs(a.Devs[i]-w) > 1e-12 {
			t.Fatalf("scores %v, want %v", a.Devs, want)
		}
	}
	for _, c := range []struct{ s, p float64 }{
		{0, 6.0 / 6}, // every training score is ≥ 0
		{0.35, 4.0 / 6},
		{0.5, 3.0 / 6}, // ties count as ≥
		{0.9 + 1e-9, 1.0 / 6},
		{7, 1.0 / 6},
	} {
		if p := a.PValue(c.s); math.Abs(p-c.p) > 1e-12 {
			t.Errorf("PValue(%v) = %v, want %v", c.s, p, c.p)
		}
	}
	// α = 1/3: ⌊(1/3)·6⌋ − 1 = 1 training score may be ≥ a flagged one: the
	// limit is the second largest, 0.5 (p(0.5) = 1/2, p(0.5+) = 1/3).
	if l := a.Limit(1.0 / 3); l != 0.5 {
		t.Errorf("Limit(1/3) = %v, want 0.5", l)
	}
	if l := a.Limit(1.0 / 6); l != 0.9 {
		t.Errorf("Limit(1/6) = %v, want 0.9", l)
	}
	// Below 1/(R + 1) nothing can be flagged.
	if l := a.Limit(0.1); !math.IsInf(l, 1) {
		t.Errorf("Limit(0.1) = %v, want +Inf with 5 training runs", l)
	}
	// Every limit agrees with the p-value: a score just beyond it has p ≤ α,
	// the limit itself p > α.
	for _, alpha := range []float64{1.0 / 6, 0.2, 1.0 / 3, 0.5, 0.9} {
		l := a.Limit(alpha)
		if !(a.PValue(l+1e-9) <= alpha && a.PValue(l) > alpha) {
			t.Errorf("α %v: limit %v, p just beyond %v, at it %v", alpha, l, a.PValue(l+1e-9), a.PValue(l))
		}
	}
	// More runs than MaxCheckDevs: the largest score of each block of three
	// (median 1499.5; scores 0.5, 0.5, 1.5, 1.5, …, 1499.5, 1499.5).
	d := make([]float64, 3*MaxCheckDevs)
	for i := range d {
		d[i] = float64(i)
	}
	b := spreadOf(d)
	if b.Runs != len(d) || len(b.Devs) != MaxCheckDevs || b.Devs[0] != 1.5 || b.Devs[1] != 2.5 || b.Devs[MaxCheckDevs-1] != 1499.5 {
		t.Errorf("thinned: runs %d, %d scores from %v to %v", b.Runs, len(b.Devs), b.Devs[0], b.Devs[len(b.Devs)-1])
	}
}
