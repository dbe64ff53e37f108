package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestWideArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	rw := func() Wide {
		var w Wide
		for i := range w {
			if r.IntN(3) > 0 {
				w[i] = r.Uint64()
			}
		}
		return w
	}
	for range 2000 {
		a, b, m := rw(), rw(), r.Uint64()
		sum, o := a.add(b)
		want := new(big.Int).Add(a.Big(), b.Big())
		if wo := want.Cmp(two256) >= 0; o != wo || sum.Big().Cmp(new(big.Int).Mod(want, two256)) != 0 {
			t.Fatalf("%v + %v = %v (overflow %v), want %v", a, b, sum, o, want)
		}
		prod, o := a.mul(m)
		want = new(big.Int).Mul(a.Big(), new(big.Int).SetUint64(m))
		if wo := want.Cmp(two256) >= 0; o != wo || prod.Big().Cmp(new(big.Int).Mod(want, two256)) != 0 {
			t.Fatalf("%v · %d = %v (overflow %v), want %v", a, m, prod, o, want)
		}
		// Float64 within 2 ulps of the exact value.
		f, _ := new(big.Float).SetInt(a.Big()).Float64()
		if g := a.Float64(); math.Abs(g-f) > 2*ulp(f) {
			t.Fatalf("Float64(%v) = %v, want %v", a, g, f)
		}
	}
	d := uint64(math.MaxUint64)
	want := new(big.Int).Exp(new(big.Int).SetUint64(d), big.NewInt(3), nil)
	if got := pow(d, 3); got.Big().Cmp(want) != 0 {
		t.Errorf("pow(2⁶⁴−1, 3) = %v, want %v", got, want)
	}
	if s := (Wide{0, 1}).String(); s != "18446744073709551616" {
		t.Errorf("String(2⁶⁴) = %s", s)
	}
}

func ulp(f float64) float64 { return math.Nextafter(math.Abs(f), math.Inf(1)) - math.Abs(f) }
