// This file defines the kinds of values an input can have and the Value type.

package dist

import (
	"strconv"
)

// Kind is the static type of an input's values. It is known when the model
// is parsed, before anything is drawn, so a caller can check that an input
// fits the slot it fills: an Int fits an integer or a floating-point slot, a
// Float fits only a floating-point slot, an IntArray or FloatArray fills a
// pointer, a String fills a char pointer or a text template.
type Kind uint8

// The kinds of values.
const (
	KindInvalid    Kind = iota // the zero Kind; no input has it
	KindInt                    // a signed 64-bit integer
	KindFloat                  // a float64
	KindIntArray               // a slice of int64
	KindFloatArray             // a slice of float64
	KindString                 // a byte string (UTF-8 when the alphabet is)
)

var kindNames = [...]string{
	KindInvalid:    "invalid",
	KindInt:        "int",
	KindFloat:      "float",
	KindIntArray:   "int array",
	KindFloatArray: "float array",
	KindString:     "string",
}

// String returns the kind's name as used in messages: "int", "float",
// "int array", "float array" or "string".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// article returns the kind's name with "a" or "an" before it.
func (k Kind) article() string {
	if k == KindInt || k == KindIntArray || k == KindInvalid {
		return "an " + k.String()
	}
	return "a " + k.String()
}

// IsArray reports whether k is IntArray or FloatArray.
func (k Kind) IsArray() bool { return k == KindIntArray || k == KindFloatArray }

// IsNumber reports whether k is Int or Float, a numeric scalar.
func (k Kind) IsNumber() bool { return k == KindInt || k == KindFloat }

// Elem returns the kind of an array's elements (Int or Float), and k itself
// for any other kind.
func (k Kind) Elem() Kind {
	switch k {
	case KindIntArray:
		return KindInt
	case KindFloatArray:
		return KindFloat
	}
	return k
}

// Value is one input's value in one trial. Kind says which field holds it:
// Int for KindInt, Float for KindFloat, Ints for KindIntArray, Floats for
// KindFloatArray, Bytes for KindString. The slices belong to the Sample the
// value came from and are overwritten by its next draw; copy them to keep
// them.
type Value struct {
	Kind   Kind
	Int    int64
	Float  float64
	Ints   []int64
	Floats []float64
	Bytes  []byte
}

// Len returns the number of elements of an array, the number of bytes of a
// string, and 1 for a scalar.
func (v Value) Len() int {
	switch v.Kind {
	case KindIntArray:
		return len(v.Ints)
	case KindFloatArray:
		return len(v.Floats)
	case KindString:
		return len(v.Bytes)
	}
	return 1
}

// Number returns a numeric scalar as a float64 (an Int converted), and 0 for
// other kinds.
func (v Value) Number() float64 {
	switch v.Kind {
	case KindInt:
		return float64(v.Int)
	case KindFloat:
		return v.Float
	}
	return 0
}

// AppendText appends v in its default text form, the form a template's
// plain {name} field produces: integers in decimal, floats in the shortest
// form that reads back exactly (strconv 'g', -1), array elements separated
// by single spaces, strings as their bytes.
func (v Value) AppendText(dst []byte) []byte {
	switch v.Kind {
	case KindInt:
		return strconv.AppendInt(dst, v.Int, 10)
	case KindFloat:
		return strconv.AppendFloat(dst, v.Float, 'g', -1, 64)
	case KindIntArray:
		for i, x := range v.Ints {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = strconv.AppendInt(dst, x, 10)
		}
	case KindFloatArray:
		for i, x := range v.Floats {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
		}
	case KindString:
		dst = append(dst, v.Bytes...)
	}
	return dst
}

// String returns v's default text form (see AppendText), with an array in
// brackets and a string quoted, as in a Sample's dump.
func (v Value) String() string {
	switch v.Kind {
	case KindIntArray, KindFloatArray:
		return "[" + string(v.AppendText(nil)) + "]"
	case KindString:
		return strconv.Quote(string(v.Bytes))
	}
	return string(v.AppendText(nil))
}
