package stats

import (
	"math"
	"reflect"
	"testing"
)

func TestDropWarmup(t *testing.T) {
	xs := []float64{9, 1, 2}
	for _, tc := range []struct {
		k    int
		want []float64
	}{{-1, xs}, {0, xs}, {1, xs[1:]}, {3, []float64{}}, {5, []float64{}}} {
		if got := DropWarmup(xs, tc.k); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DropWarmup(%v, %d) = %v, want %v", xs, tc.k, got, tc.want)
		}
	}
}

func TestCutTail(t *testing.T) {
	for _, tc := range []struct {
		name          string
		xs            []float64
		k             float64
		kept, cut     []float64
		median, scale float64
	}{
		// Median 11; |x − 11| sorted 0 0 0 1 1 1 1 1 39 89, MAD = 1; threshold
		// 11 + 3.5·1.482602 = 16.189: 50 and 100 are cut.
		{"preemption", []float64{10, 11, 12, 10, 11, 50, 10, 12, 11, 100}, DefaultTailK,
			[]float64{10, 11, 12, 10, 11, 10, 12, 11}, []float64{50, 100}, 11, MADScale},
		// Same data, k = 30: threshold 11 + 44.48 = 55.48 keeps 50.
		{"wide k", []float64{10, 11, 12, 10, 11, 50, 10, 12, 11, 100}, 30,
			[]float64{10, 11, 12, 10, 11, 50, 10, 12, 11}, []float64{100}, 11, MADScale},
		// MAD = 0 (five equal times of seven): scale √(π/2)·(1+4)/7 = 0.895226;
		// threshold 5 + 3.5·0.895226 = 8.133: 9 is cut, 6 kept.
		{"MAD zero", []float64{5, 5, 9, 5, 5, 5, 6}, 0,
			[]float64{5, 5, 5, 5, 5, 6}, []float64{9}, 5, math.Sqrt(math.Pi/2) * 5 / 7},
		{"all equal", []float64{3, 3, 3}, DefaultTailK, []float64{3, 3, 3}, nil, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := CutTail(tc.xs, tc.k)
			if !reflect.DeepEqual(c.Kept, tc.kept) || !reflect.DeepEqual(c.Cut, tc.cut) || c.Median != tc.median || !closeRel(c.Scale, tc.scale, 1e-15, 0) {
				t.Errorf("CutTail = %+v, want kept %v cut %v median %v scale %v", c, tc.kept, tc.cut, tc.median, tc.scale)
			}
			k := tc.k
			if k <= 0 {
				k = DefaultTailK
			}
			if c.Threshold != c.Median+k*c.Scale {
				t.Errorf("Threshold %v ≠ median + k·scale", c.Threshold)
			}
		})
	}
	if c := CutTail(nil, 3); c.Kept != nil || !math.IsNaN(c.Median) {
		t.Errorf("CutTail(nil) = %+v", c)
	}
	if got := 1 / NormalQuantile(0.75); !closeRel(got, MADScale, 1e-15, 0) {
		t.Errorf("1/Φ⁻¹(3/4) = %.16g, MADScale = %.16g", got, MADScale)
	}
}

func TestMedianAndRange(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Errorf("Median(nil) is not NaN")
	}
	// The timing guide's example line "MinT=0.007165s MaxT=0.007282s T=0.007201s": Δ =
	// max(0.007282 − 0.007201, 0.007201 − 0.007165) = 0.000081.
	if got := RangeHalfWidth(0.007201, 0.007165, 0.007282); !closeRel(got, 0.000081, 1e-9, 0) {
		t.Errorf("RangeHalfWidth = %v, want 0.000081", got)
	}
}
