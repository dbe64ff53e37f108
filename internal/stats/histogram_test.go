package stats

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestSturgesBins(t *testing.T) {
	// K = ⌊log₂ N⌋ + 1.
	for _, tc := range []struct{ n, k int }{
		{0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {8, 4}, {29, 5}, {100, 7}, {1000, 10}, {1023, 10}, {1024, 11},
	} {
		if got := SturgesBins(tc.n); got != tc.k {
			t.Errorf("SturgesBins(%d) = %d, want %d", tc.n, got, tc.k)
		}
	}
}

func TestHistogram(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		k    int
		want Histogram
	}{
		// 0..9, Sturges K = 4, width 2.25.
		{"sturges", []float64{9, 0, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
			Histogram{Edges: []float64{0, 2.25, 4.5, 6.75, 9}, Counts: []int{3, 2, 2, 3}}},
		// Values on the edges go right, but the maximum stays in the last bin.
		{"edges", []float64{0, 1, 2, 3, 4}, 4,
			Histogram{Edges: []float64{0, 1, 2, 3, 4}, Counts: []int{1, 1, 1, 2}}},
		{"constant", []float64{2, 2, 2}, 0, Histogram{Edges: []float64{2, 2}, Counts: []int{3}}},
		{"empty", nil, 0, Histogram{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewHistogram(tc.xs, tc.k); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NewHistogram = %+v, want %+v", got, tc.want)
			}
		})
	}
	// The bin rule holds exactly, despite rounding in the edges.
	r := rand.New(rand.NewPCG(9, 9))
	for range 100 {
		xs := make([]float64, 1+r.IntN(300))
		for i := range xs {
			xs[i] = float64(r.IntN(7)) * 0.1 // many values on or near edges
		}
		h := NewHistogram(xs, 0)
		var total int
		for _, c := range h.Counts {
			total += c
		}
		if total != len(xs) {
			t.Fatalf("counts sum to %d, want %d", total, len(xs))
		}
		want := make([]int, len(h.Counts))
		for _, x := range xs {
			for i := range want {
				if h.Edges[i] <= x && (x < h.Edges[i+1] || i == len(want)-1) {
					want[i]++
					break
				}
			}
		}
		if !reflect.DeepEqual(h.Counts, want) {
			t.Fatalf("edges %v: counts %v, want %v", h.Edges, h.Counts, want)
		}
	}
}
