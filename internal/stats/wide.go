// This file implements Wide, the exact 256-bit unsigned sums that CountDist keeps.

package stats

import (
	"math"
	"math/big"
	"math/bits"
)

// Wide is an unsigned 256-bit integer stored as four 64-bit words, least significant
// first: the value is W[0] + W[1]·2⁶⁴ + W[2]·2¹²⁸ + W[3]·2¹⁹². [CountDist] keeps its
// sums of powers in Wide so that adding and merging are exact integer operations,
// hence associative and commutative. 256 bits hold Σ d³ over up to 2⁶⁴ terms with
// d < 2⁶⁴.
type Wide [4]uint64

// wideOf returns d as a Wide.
func wideOf(d uint64) Wide { return Wide{d} }

// add returns w + v and whether the sum overflowed 256 bits.
func (w Wide) add(v Wide) (Wide, bool) {
	var c uint64
	w[0], c = bits.Add64(w[0], v[0], 0)
	w[1], c = bits.Add64(w[1], v[1], c)
	w[2], c = bits.Add64(w[2], v[2], c)
	w[3], c = bits.Add64(w[3], v[3], c)
	return w, c != 0
}

// mul returns w·m and whether the product overflowed 256 bits.
func (w Wide) mul(m uint64) (Wide, bool) {
	var r Wide
	var carry uint64
	for i := range w {
		hi, lo := bits.Mul64(w[i], m)
		var c uint64
		r[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c // hi ≤ 2⁶⁴−2, so no wrap
	}
	return r, carry != 0
}

// mustAdd returns w + v and panics on overflow, which the bucket widths of a
// CountDist rule out: overflow means a broken invariant.
func (w Wide) mustAdd(v Wide) Wide {
	r, o := w.add(v)
	if o {
		panic("stats: Wide overflow in add")
	}
	return r
}

// mustMul returns w·m and panics on overflow (see mustAdd).
func (w Wide) mustMul(m uint64) Wide {
	r, o := w.mul(m)
	if o {
		panic("stats: Wide overflow in mul")
	}
	return r
}

// pow returns d^k for k ≤ 3 (at most 192 bits).
func pow(d uint64, k int) Wide {
	w := wideOf(1)
	for range k {
		w = w.mustMul(d)
	}
	return w
}

// IsZero reports whether w = 0.
func (w Wide) IsZero() bool { return w == Wide{} }

// Float64 returns w rounded to a float64 by Horner's rule from the most significant
// word, W[3]·2¹⁹² + W[2]·2¹²⁸ + W[1]·2⁶⁴ + W[0]: within 2 ulps of the exact value and
// the same on every platform (Go's float64 arithmetic is IEEE 754 binary64 with
// round-to-nearest-even).
func (w Wide) Float64() float64 {
	const two64 = 1 << 64
	f := float64(w[3])
	f = math.FMA(f, two64, float64(w[2]))
	f = math.FMA(f, two64, float64(w[1]))
	f = math.FMA(f, two64, float64(w[0]))
	return f
}

// Big returns w as a big.Int.
func (w Wide) Big() *big.Int {
	var b big.Int
	for i := len(w) - 1; i >= 0; i-- {
		b.Lsh(&b, 64)
		b.Or(&b, new(big.Int).SetUint64(w[i]))
	}
	return &b
}

// String returns w in decimal.
func (w Wide) String() string { return w.Big().String() }

// less reports whether w < v.
func (w Wide) less(v Wide) bool {
	for i := 3; i >= 0; i-- {
		if w[i] != v[i] {
			return w[i] < v[i]
		}
	}
	return false
}
