// This file implements the generators that fill one input's Value: numeric
// scalars, arrays, strings, and copies of other inputs.

package dist

import (
	"fmt"
	"unicode/utf8"
)

// gen fills the Value of one input in one trial. A gen is immutable; all
// state lives in the Sample. draw finds its random stream in s.rng, seeded
// for this input and trial, and the values of the inputs it depends on in
// s.Values.
type gen interface {
	kind() Kind
	draw(s *Sample, v *Value) error
}

// scalarGen draws a numeric scalar.
type scalarGen struct{ d scalarDist }

func (g scalarGen) kind() Kind { return g.d.kind() }

func (g scalarGen) draw(s *Sample, v *Value) error {
	if q, ok := g.d.(quantiler); ok && s.unit > 1 {
		x := q.quantile(s.stratified())
		if g.d.kind() == KindInt {
			v.Int = toInt(x)
		} else {
			v.Float = x
		}
		return nil
	}
	if g.d.kind() == KindInt {
		v.Int = g.d.int(s.rng)
	} else {
		v.Float = g.d.float(s.rng)
	}
	return nil
}

// lenSource is the length of an array or string: a constant n, the value
// of input ref, or a draw of d from the input's "#len" stream.
type lenSource struct {
	n   int64
	ref int // -1 if none
	d   scalarDist
}

// get returns the length for this trial, checked against the model's limit.
func (l *lenSource) get(s *Sample) (int, error) {
	n := l.n
	switch {
	case l.ref >= 0:
		n = s.Values[l.ref].Int
	case l.d != nil:
		seedStream(&s.subPCG, s.Seed, s.Trial, s.key^lenKey)
		n = l.d.int(s.subRng)
	}
	if n < 0 || n > int64(s.model.maxLen) {
		return 0, fmt.Errorf("dist: trial %d: input %s: length %d is outside [0, %d]", s.Trial, s.model.Inputs[s.cur].Name, n, s.model.maxLen)
	}
	return int(n), nil
}

// lenKey is xored into an input's stream key to make the key of the
// stream its length is drawn from, when the length is a distribution.
var lenKey = mix(streamKey("#len"))

// arrayGen draws array(len, elem): len elements drawn in turn from the
// input's stream.
type arrayGen struct {
	n    lenSource
	elem scalarDist
}

func (g *arrayGen) kind() Kind {
	if g.elem.kind() == KindInt {
		return KindIntArray
	}
	return KindFloatArray
}

func (g *arrayGen) draw(s *Sample, v *Value) error {
	n, err := g.n.get(s)
	if err != nil {
		return err
	}
	r := s.rng
	if g.elem.kind() == KindInt {
		v.Ints = resize(v.Ints, n)
		for i := range v.Ints {
			v.Ints[i] = g.elem.int(r)
		}
		return nil
	}
	v.Floats = resize(v.Floats, n)
	for i := range v.Floats {
		v.Floats[i] = g.elem.float(r)
	}
	return nil
}

// resize returns b with length n, reusing its storage when it can.
func resize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// stringGen draws string(len, alphabet): len characters, each uniform over
// the alphabet's characters.
type stringGen struct {
	n     lenSource
	ascii []byte // the alphabet when it is all ASCII
	runes []rune // otherwise
}

func newStringGen(n lenSource, alphabet string) *stringGen {
	g := &stringGen{n: n}
	for i := 0; i < len(alphabet); i++ {
		if alphabet[i] >= utf8.RuneSelf {
			g.runes = []rune(alphabet)
			return g
		}
	}
	g.ascii = []byte(alphabet)
	return g
}

func (g *stringGen) kind() Kind { return KindString }

func (g *stringGen) draw(s *Sample, v *Value) error {
	n, err := g.n.get(s)
	if err != nil {
		return err
	}
	r := s.rng
	if g.ascii != nil {
		v.Bytes = resize(v.Bytes, n)
		for i := range v.Bytes {
			v.Bytes[i] = g.ascii[r.IntN(len(g.ascii))]
		}
		return nil
	}
	v.Bytes = v.Bytes[:0]
	for range n {
		v.Bytes = utf8.AppendRune(v.Bytes, g.runes[r.IntN(len(g.runes))])
	}
	return nil
}

// stringChoiceGen draws one of a set of strings: const("s") or
// choice("a", "b", ...).
type stringChoiceGen struct {
	vals [][]byte
	pick *finiteDist // picks an index
}

func newStringChoice(vals []string, weights []float64) *stringChoiceGen {
	g := &stringChoiceGen{}
	idx := make([]float64, len(vals))
	for i, s := range vals {
		g.vals = append(g.vals, []byte(s))
		idx[i] = float64(i)
	}
	g.pick = newFinite(KindInt, idx, weights)
	return g
}

func (g *stringChoiceGen) kind() Kind { return KindString }

func (g *stringChoiceGen) draw(s *Sample, v *Value) error {
	v.Bytes = append(v.Bytes[:0], g.vals[g.pick.pick(s.rng)]...)
	return nil
}

// aliasGen copies the value of input ref: x = n.
type aliasGen struct {
	ref int
	k   Kind
}

func (g aliasGen) kind() Kind { return g.k }

func (g aliasGen) draw(s *Sample, v *Value) error {
	src := &s.Values[g.ref]
	v.Int, v.Float = src.Int, src.Float
	switch g.k {
	case KindIntArray:
		v.Ints = append(v.Ints[:0], src.Ints...)
	case KindFloatArray:
		v.Floats = append(v.Floats[:0], src.Floats...)
	case KindString:
		v.Bytes = append(v.Bytes[:0], src.Bytes...)
	}
	return nil
}
