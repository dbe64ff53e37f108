package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkSummary measures Summary on a table of about 40 distinct counts, the size
// of a geometric trip count's, and on a full coarse representation.
func BenchmarkSummary(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, bc := range []struct {
		name string
		draw func() uint64
	}{
		{"geometric", func() uint64 { return uint64(math.Floor(math.Log(1-r.Float64()) / math.Log(0.7))) }},
		{"coarse", func() uint64 { return r.Uint64N(1 << 40) }},
	} {
		var d CountDist
		for range 50000 {
			d.Add(bc.draw())
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				d.Summary()
			}
		})
	}
}
