package stats

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// countSets are streams of per-trial counts that exercise both representations.
func countSets() []struct {
	name   string
	coarse bool // more than MaxExact distinct values
	xs     []uint64
} {
	r := rand.New(rand.NewPCG(10, 20))
	gen := func(n int, f func() uint64) []uint64 {
		xs := make([]uint64, n)
		for i := range xs {
			xs[i] = f()
		}
		return xs
	}
	geom := func(p float64) uint64 { return uint64(math.Floor(math.Log(1-r.Float64()) / math.Log(1-p))) }
	return []struct {
		name   string
		coarse bool
		xs     []uint64
	}{
		{"geometric", false, gen(3000, func() uint64 { return geom(0.1) })},
		{"rare", false, append(make([]uint64, 999), 1)},
		{"near-2^64", false, gen(500, func() uint64 { return math.MaxUint64 - r.Uint64N(1<<40) })},
		{"uniform-1e6", true, gen(6000, func() uint64 { return r.Uint64N(1_000_001) })},
		{"spike-and-tail", true, gen(15000, func() uint64 {
			if r.IntN(10) > 0 {
				return 5
			}
			return r.Uint64N(1 << 50)
		})},
		{"coarse-near-2^64", true, gen(3000, func() uint64 { return math.MaxUint64 - r.Uint64() })},
		{"concentrated", true, gen(20000, func() uint64 {
			// A tight cluster at the mean and a symmetric spread tail: the cluster
			// lies in the bucket that straddles the mean.
			if r.IntN(100) > 5 {
				return 1_000_000_000 + uint64(r.IntN(101))
			}
			return 1_000_000_000 - 1<<29 + r.Uint64N(1<<30)
		})},
		{"just-over-exact", true, gen(10000, func() uint64 { return uint64(r.IntN(MaxExact + 2)) })},
	}
}

// exact returns the true N, mean, M2, M3 and Σ|x − x̄|³ of xs in rational arithmetic.
func exact(xs []uint64) (n uint64, mean, m2, m3, abs3 float64) {
	sum := new(big.Int)
	for _, x := range xs {
		sum.Add(sum, new(big.Int).SetUint64(x))
	}
	mu := new(big.Rat).SetFrac(sum, new(big.Int).SetUint64(uint64(len(xs))))
	r2, r3, ra := new(big.Rat), new(big.Rat), new(big.Rat)
	for _, x := range xs {
		y := new(big.Rat).Sub(new(big.Rat).SetInt(new(big.Int).SetUint64(x)), mu)
		y2 := new(big.Rat).Mul(y, y)
		y3 := new(big.Rat).Mul(y2, y)
		r2.Add(r2, y2)
		r3.Add(r3, y3)
		ra.Add(ra, new(big.Rat).Abs(y3))
	}
	f := func(r *big.Rat) float64 { v, _ := r.Float64(); return v }
	return uint64(len(xs)), f(mu), f(r2), f(r3), f(ra)
}

func build(xs []uint64) *CountDist {
	var d CountDist
	for _, x := range xs {
		d.Add(x)
	}
	return &d
}

func TestCountDistSummaryAgainstExact(t *testing.T) {
	for _, tc := range countSets() {
		t.Run(tc.name, func(t *testing.T) {
			d := build(tc.xs)
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			if d.Exact() == tc.coarse {
				t.Fatalf("Exact() = %v with %d values", d.Exact(), len(tc.xs))
			}
			n, mean, m2, m3, abs3 := exact(tc.xs)
			s := d.Summary()
			// Exact table: one pass over ≤ 1024 values in float64, relative error
			// ≲ 1024·2⁻⁵³ ≈ 1e-13; 1e-11 leaves room. Values near 2⁶⁴ lose their low
			// bits in float64 (an ulp there is 4096 against a spread of 2⁴⁰): 1e-8.
			// Buckets: the cancellation bound of Summary's doc, 2⁻⁵³·(w/s)², is below
			// 1e-12 for these sets; 1e-9 leaves room. M3 is compared on the scale of
			// Abs3, since it may be near 0.
			tol := 1e-11
			if tc.coarse || tc.name == "near-2^64" {
				tol = 1e-8
			}
			if s.N != n || !closeRel(s.Mean, mean, 1e-15, 0) || !closeRel(s.M2, m2, tol, 0) || !closeRel(s.M3, m3, tol, abs3) {
				t.Errorf("Summary = %+v, want N=%d mean=%v M2=%v M3=%v", s, n, mean, m2, m3)
			}
			if tc.coarse {
				if !(s.Abs3Lo <= abs3*(1+tol) && abs3 <= s.Abs3*(1+tol)) {
					t.Errorf("Abs3 bounds [%v, %v] miss the exact %v", s.Abs3Lo, s.Abs3, abs3)
				}
				// Only the bucket straddling the mean is bounded; for these data it
				// holds a small share of Σ|x − x̄|³, so the bounds are tight, except
				// for "concentrated", whose cluster may share the mean's bucket.
				if s.Abs3 > abs3*1.01 && tc.name != "concentrated" {
					t.Errorf("Abs3 upper bound %v more than 1%% above the exact %v", s.Abs3, abs3)
				}
				t.Logf("level %d, %d buckets, Abs3 bounds [%.6g, %.6g], exact %.6g", d.Level, len(d.Buckets), s.Abs3Lo, s.Abs3, abs3)
			} else if s.Abs3 != s.Abs3Lo || !closeRel(s.Abs3, abs3, tol, 0) {
				t.Errorf("Abs3 = [%v, %v], want %v", s.Abs3Lo, s.Abs3, abs3)
			}
		})
	}
}

// TestCountDistShardsBitForBit checks the promise that matters for reproducibility:
// any split of the trials into shards, merged in any order and grouping, gives the
// same state, hence the same Summary bit for bit, as one stream.
func TestCountDistShardsBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range countSets() {
		t.Run(tc.name, func(t *testing.T) {
			want := build(tc.xs)
			wantS := want.Summary()
			for trial := range 20 {
				k := 2 + r.IntN(6)
				cuts := []int{0, len(tc.xs)}
				for range k - 1 {
					cuts = append(cuts, r.IntN(len(tc.xs)+1))
				}
				slices.Sort(cuts)
				var shards []*CountDist
				for i := 1; i < len(cuts); i++ {
					shards = append(shards, build(tc.xs[cuts[i-1]:cuts[i]]))
				}
				// Merge in a random order, as a random binary tree.
				r.Shuffle(len(shards), func(i, j int) { shards[i], shards[j] = shards[j], shards[i] })
				for len(shards) > 1 {
					i := r.IntN(len(shards) - 1)
					shards[i].Merge(shards[i+1])
					shards = slices.Delete(shards, i+1, i+2)
				}
				got := shards[0]
				if err := got.Validate(); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Values, want.Values) || got.Level != want.Level || !reflect.DeepEqual(got.Buckets, want.Buckets) {
					t.Fatalf("split %d (%v): merged state differs from the stream's (level %d vs %d, %d vs %d buckets)",
						trial, cuts, got.Level, want.Level, len(got.Buckets), len(want.Buckets))
				}
				if s := got.Summary(); !sameBits(s, wantS) {
					t.Fatalf("split %d: Summary %+v, stream %+v", trial, s, wantS)
				}
			}
		})
	}
}

func sameBits(a, b Summary) bool {
	eq := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return a.N == b.N && eq(a.Mean, b.Mean) && eq(a.M2, b.M2) && eq(a.M3, b.M3) && eq(a.Abs3, b.Abs3) && eq(a.Abs3Lo, b.Abs3Lo)
}

func TestCountDistCanonicalLevel(t *testing.T) {
	for _, tc := range countSets() {
		if !tc.coarse {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			d := build(tc.xs)
			if d.Exact() || len(d.Buckets) > MaxBuckets {
				t.Fatalf("exact %v, %d buckets (limit %d)", d.Exact(), len(d.Buckets), MaxBuckets)
			}
			// The level is the largest that fits: one level finer would not.
			if d.Level < TopLevel {
				var table CountDist
				for _, x := range tc.xs {
					table.Values = mergeValues(table.Values, []ValueCount{{V: x, N: 1}})
				}
				if finer := valuesToBuckets(table.Values, d.Level+1); len(finer) <= MaxBuckets {
					t.Errorf("level %d, but level %d needs only %d buckets", d.Level, d.Level+1, len(finer))
				}
			}
		})
	}
}

func TestCountDistAddN(t *testing.T) {
	var a, b CountDist
	for _, x := range []uint64{3, 3, 3, 0, 7, 7} {
		a.Add(x)
	}
	b.AddN(7, 2)
	b.AddN(3, 3)
	b.AddN(9, 0)
	b.AddN(0, 1)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Add and AddN differ: %+v vs %+v", a, b)
	}
	want := []ValueCount{{0, 1}, {3, 3}, {7, 2}}
	if !reflect.DeepEqual(a.Values, want) || a.N() != 6 {
		t.Errorf("Values = %v (N %d), want %v (N 6)", a.Values, a.N(), want)
	}
	c := a.Clone()
	c.Add(1)
	if a.N() != 6 {
		t.Errorf("Clone shares memory with the original")
	}
	var empty CountDist
	if s := empty.Summary(); s.N != 0 || !math.IsNaN(s.Mean) {
		t.Errorf("empty Summary = %+v", s)
	}
}

func TestCountDistValidate(t *testing.T) {
	good := build(countSets()[3].xs) // coarse
	bad := func(f func(d *CountDist)) *CountDist {
		d := good.Clone()
		f(d)
		return d
	}
	for _, tc := range []struct {
		name string
		d    *CountDist
		ok   bool
	}{
		{"coarse", good, true},
		{"exact", build([]uint64{1, 2, 2}), true},
		{"empty", &CountDist{}, true},
		{"both", &CountDist{Values: []ValueCount{{1, 1}}, Buckets: good.Buckets}, false},
		{"unsorted", &CountDist{Values: []ValueCount{{2, 1}, {1, 1}}}, false},
		{"zero", &CountDist{Values: []ValueCount{{2, 0}}}, false},
		{"overflow", &CountDist{Values: []ValueCount{{1, math.MaxUint64}, {2, 1}}}, false},
		{"level", bad(func(d *CountDist) { d.Level = TopLevel + 1 }), false},
		{"boundary", bad(func(d *CountDist) { d.Buckets[len(d.Buckets)-1].Lo++ }), false},
		{"minmax", bad(func(d *CountDist) { b := &d.Buckets[len(d.Buckets)-1]; b.Min, b.Max = b.Max, b.Min-1 }), false},
		{"sums", bad(func(d *CountDist) { d.Buckets[len(d.Buckets)-1].D1 = Wide{0, 0, 1} }), false},
		{"order", bad(func(d *CountDist) { d.Buckets[1], d.Buckets[2] = d.Buckets[2], d.Buckets[1] }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.d.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestSummaryZeros: the Summary with k virtual zeros is, bit for bit, the Summary
// after AddN(0, k), for exact tables and bucketed distributions, with and without
// zeros already recorded, and for an empty distribution.
func TestSummaryZeros(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	kinds := map[string]int{}
	for trial := range 400 {
		var d CountDist
		distinct := 1 + r.IntN(8)
		if trial%2 == 1 {
			distinct = MaxExact + 1 + r.IntN(200) // forces buckets
		}
		for range r.IntN(3000) {
			d.Add(uint64(r.IntN(distinct)) * uint64(1+r.IntN(1000)))
		}
		if trial%3 == 0 {
			d.Add(0)
		}
		if trial%7 == 0 {
			d = CountDist{}
		}
		k := uint64(r.IntN(50))
		z := d.Summary().Zeros > 0
		kinds[fmt.Sprint(len(d.Buckets) > 0, z, k > 0)]++
		got := d.SummaryZeros(k)
		e := d.Clone()
		e.AddN(0, k)
		want := e.Summary()
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Fatalf("trial %d (%d values, %d buckets), k = %d:\nSummaryZeros %+v\nafter AddN   %+v", trial, len(d.Values), len(d.Buckets), k, got, want)
		}
	}
	// Every case: buckets or a table, zeros recorded or not, zeros added or not.
	if len(kinds) != 8 {
		t.Errorf("cases covered (buckets, zeros, k > 0): %v, want all 8", kinds)
	}
}
