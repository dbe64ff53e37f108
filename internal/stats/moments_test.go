package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// closeRel reports whether got is within tol of want, relative to max(|want|, scale).
func closeRel(got, want, tol, scale float64) bool {
	return math.Abs(got-want) <= tol*max(math.Abs(want), scale)
}

func TestMomentsWorkedExample(t *testing.T) {
	// x = 2 4 4 4 5 5 7 9: mean 5, deviations −3 −1 −1 −1 0 0 2 4, so
	// M2 = 9+1+1+1+0+0+4+16 = 32, M3 = −27−1−1−1+0+0+8+64 = 42,
	// M4 = 81+1+1+1+0+0+16+256 = 356; s² = 32/7; g1 = √8·42/32^1.5.
	m := MomentsOf([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"N", float64(m.N), 8},
		{"Mean", m.Mean, 5},
		{"M2", m.M2, 32},
		{"M3", m.M3, 42},
		{"M4", m.M4, 356},
		{"Variance", m.Variance(), 32.0 / 7},
		{"StdErr", m.StdErr(), math.Sqrt(32.0 / 7 / 8)},
		{"Skewness", m.Skewness(), math.Sqrt(8) * 42 / math.Pow(32, 1.5)},
	} {
		if !closeRel(c.got, c.want, 1e-14, 1) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// twoPass returns the central sums of xs by the two-pass algorithm.
func twoPass(xs []float64) (mean, m2, m3, m4 float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		d := x - mean
		m2 += d * d
		m3 += d * d * d
		m4 += d * d * d * d
	}
	return
}

func TestMomentsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		gen  func() float64
		// tol is the relative tolerance on the central sums. Stable one-pass updates
		// err by about n·2⁻⁵³ ≈ 2e-13 relative to each sum's scale; data at offset
		// 10⁶ with unit spread are worse conditioned by the factor mean/σ = 10⁶ (each
		// deviation x − x̄ carries an absolute error of an ulp of 10⁶ ≈ 1.2e-10).
		tol float64
	}{
		{"normal-offset", func() float64 { return 1e6 + r.NormFloat64() }, 1e-8},
		{"exponential", func() float64 { return r.ExpFloat64() }, 1e-11},
		{"uniform", func() float64 { return r.Float64() }, 1e-11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := make([]float64, 2000)
			for i := range xs {
				xs[i] = tc.gen()
			}
			mean, m2, m3, m4 := twoPass(xs)
			all := MomentsOf(xs)
			// Shards of uneven sizes, merged left to right and as a tree.
			cuts := []int{0, 1, 7, 500, 1333, 2000}
			var seq Moments
			var parts []Moments
			for i := 1; i < len(cuts); i++ {
				p := MomentsOf(xs[cuts[i-1]:cuts[i]])
				parts = append(parts, p)
				seq.Merge(p)
			}
			tree := parts[0]
			tree.Merge(parts[1])
			right := parts[2]
			right.Merge(parts[3])
			right.Merge(parts[4])
			tree.Merge(right)
			// M3 is compared on its natural scale √(M2³/n), since it may be near 0.
			s3 := math.Sqrt(m2 * m2 * m2 / float64(len(xs)))
			for _, m := range []struct {
				name string
				m    Moments
			}{{"stream", all}, {"sequential merge", seq}, {"tree merge", tree}} {
				if m.m.N != 2000 || !closeRel(m.m.Mean, mean, 1e-13, 1) || !closeRel(m.m.M2, m2, tc.tol, 0) ||
					!closeRel(m.m.M3, m3, tc.tol, s3) || !closeRel(m.m.M4, m4, tc.tol, 0) {
					t.Errorf("%s: got %+v, want N=2000 mean=%v M2=%v M3=%v M4=%v", m.name, m.m, mean, m2, m3, m4)
				}
			}
		})
	}
}

func TestMomentsEmpty(t *testing.T) {
	var m Moments
	m.Merge(Moments{})
	if m.N != 0 || !math.IsNaN(m.Variance()) || !math.IsNaN(m.StdErr()) {
		t.Errorf("empty: %+v, variance %v", m, m.Variance())
	}
	o := MomentsOf([]float64{1, 3})
	m.Merge(o)
	if m != o {
		t.Errorf("empty.Merge(o) = %+v, want %+v", m, o)
	}
	if !math.IsNaN(MomentsOf([]float64{5, 5}).Skewness()) {
		t.Errorf("skewness of constant data is not NaN")
	}
}
