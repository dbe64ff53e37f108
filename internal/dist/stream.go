// This file implements the random streams: one independent generator per
// (seed, trial, input).

package dist

import "math/rand/v2"

// Each input of each trial draws from its own PCG-DXSM generator
// (math/rand/v2.PCG, the Source gonum v0.17's distuv takes), whose 128-bit
// state is a hash of (seed, trial, input key):
//
//	k  = mix(seed ^ mix(key))
//	hi = mix(k + trial·φ)          φ = 0x9e3779b97f4a7c15 (odd)
//	lo = mix(hi ^ k ^ 0x5851f42d4c957f2d)
//
// where mix is the SplitMix64 finalizer (a bijection of uint64) and key is
// the FNV-1a hash of the input's name. For a fixed seed and input, distinct
// trials get distinct hi, so distinct states; the hash spreads neighbouring
// trials and seeds over the state space so the streams behave as
// independent. Consequences, relied on by the freq command and tested:
//
//   - trial i's values depend only on (seed, i) and the model, never on the
//     order trials are drawn in or on which worker draws them;
//   - an input's values depend only on its own name and definition (and on
//     the values of the inputs it names, such as an array's length): adding,
//     removing or reordering other inputs leaves them unchanged;
//   - an array's or a string's length given as a distribution draws from a
//     second stream, of key ^ lenKey, so the elements do not shift when the
//     length's distribution changes; elements are drawn in index order from
//     the input's own stream, so a longer array extends a shorter one.
//
// Changing any of this changes every value ever drawn; TestStreamGolden
// pins it.

// mix is the SplitMix64 finalizer (Steele, Lea and Flood 2014).
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// streamKey returns the stream key of a name: its 64-bit FNV-1a hash.
func streamKey(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}

// seedStream sets p to the start of the stream of (seed, trial, key).
func seedStream(p *rand.PCG, seed, trial, key uint64) {
	k := mix(seed ^ mix(key))
	hi := mix(k + trial*0x9e3779b97f4a7c15)
	lo := mix(hi ^ k ^ 0x5851f42d4c957f2d)
	p.Seed(hi, lo)
}
