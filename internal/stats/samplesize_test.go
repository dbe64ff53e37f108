package stats

import (
	"math"
	"testing"
)

func TestSampleSize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		// Mean: m' = 1, σ' = 0.05, ε₀ = 1 %, P = 0.95: 3.841459·0.0025/0.0001 = 96.04 → 97.
		{"mean", SampleSizeMean(0.95, 1, 0.05, 0.01), 97},
		// Inverses: 97 measurements reach 1.959964·0.05/√97 = 0.99502 %, 96 do not.
		{"relerr mean 97", RelErrMean(0.95, 1, 0.05, 97), 1.95996398454005 * 0.05 / math.Sqrt(97)},
		{"mean zero", SampleSizeMean(0.95, 0, 1, 0.01), math.Inf(1)},
	} {
		if !(tc.got == tc.want || closeRel(tc.got, tc.want, 1e-12, 0)) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if e := RelErrMean(0.95, 1, 0.05, 97); e > 0.01 {
		t.Errorf("97 samples reach %v > 1 %%", e)
	}
	if e := RelErrMean(0.95, 1, 0.05, 96); e <= 0.01 {
		t.Errorf("96 samples reach %v ≤ 1 %%", e)
	}
}
