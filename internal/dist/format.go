// This file implements the printf formats of template fields.

package dist

import (
	"fmt"
	"strconv"
)

// format is a checked printf verb, %[flags][width][.prec]verb.
type format struct {
	spec    string
	verb    byte
	prec    int  // -1 if none
	plain   bool // no flags or width: strconv can render it
	toFloat bool // an int formatted with a float verb
}

// maxWidth is the widest field a format may ask for; Go's fmt gives up beyond 10⁶
// and prints %!(NOVERB) instead of the value.
const maxWidth = 1000

// verbs lists the verbs each element kind accepts.
var verbs = map[Kind]string{
	KindInt:    "dvxXobeEfFgG",
	KindFloat:  "eEfFgGv",
	KindString: "sqvxX",
}

// parseFormat checks spec against the input's kind; on failure it returns a
// message and a hint.
func parseFormat(spec string, in Input) (f *format, msg, hint string) {
	const usage = "a format is one printf verb, e.g. {x:%.3f} or {n:%5d}"
	f = &format{spec: spec, prec: -1, plain: true}
	i := 0
	if i >= len(spec) || spec[i] != '%' {
		return nil, "format '" + spec + "' does not start with '%'", usage
	}
	i++
	for i < len(spec) && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ' || spec[i] == '#' || spec[i] == '0') {
		f.plain = false
		i++
	}
	w := i
	for i < len(spec) && isDigit(spec[i]) {
		f.plain = false
		i++
	}
	if width, err := strconv.Atoi(spec[w:i]); i > w && (err != nil || width > maxWidth) {
		return nil, fmt.Sprintf("width %s in format '%s' is too large", spec[w:i], spec), fmt.Sprintf("at most %d", maxWidth)
	}
	if i < len(spec) && spec[i] == '.' {
		i++
		j := i
		for i < len(spec) && isDigit(spec[i]) {
			i++
		}
		p, err := strconv.Atoi(spec[j:i])
		if err != nil || p > 100 {
			p = 0
			if i > j {
				return nil, "bad precision in format '" + spec + "'", usage
			}
		}
		f.prec = p
	}
	if i != len(spec)-1 {
		return nil, "bad format '" + spec + "'", usage
	}
	f.verb = spec[i]
	ek := in.Kind.Elem()
	ok := false
	for j := 0; j < len(verbs[ek]); j++ {
		ok = ok || verbs[ek][j] == f.verb
	}
	if !ok {
		hint := "verbs for " + ek.String() + " values: "
		for j := 0; j < len(verbs[ek]); j++ {
			if j > 0 {
				hint += " "
			}
			hint += "%" + verbs[ek][j:j+1]
		}
		return nil, fmt.Sprintf("format '%s' does not suit %s, which is %s", spec, in.Name, in.Kind), hint
	}
	f.toFloat = ek == KindInt && isFloatVerb(f.verb)
	return f, "", ""
}

func isFloatVerb(c byte) bool {
	switch c {
	case 'e', 'E', 'f', 'F', 'g', 'G':
		return true
	}
	return false
}

// appendValue appends v formatted by f, an array element by element with
// single spaces between.
func (f *format) appendValue(dst []byte, v *Value) []byte {
	switch v.Kind {
	case KindInt:
		return f.appendInt(dst, v.Int)
	case KindFloat:
		return f.appendFloat(dst, v.Float)
	case KindIntArray:
		for i, x := range v.Ints {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = f.appendInt(dst, x)
		}
	case KindFloatArray:
		for i, x := range v.Floats {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = f.appendFloat(dst, x)
		}
	case KindString:
		if f.plain && f.prec < 0 && (f.verb == 's' || f.verb == 'v') {
			return append(dst, v.Bytes...)
		}
		return fmt.Appendf(dst, f.spec, v.Bytes)
	}
	return dst
}

func (f *format) appendInt(dst []byte, x int64) []byte {
	if f.toFloat {
		return f.appendFloat(dst, float64(x))
	}
	if f.plain && f.prec < 0 {
		switch f.verb {
		case 'd', 'v':
			return strconv.AppendInt(dst, x, 10)
		case 'x':
			return strconv.AppendInt(dst, x, 16)
		}
	}
	return fmt.Appendf(dst, f.spec, x)
}

func (f *format) appendFloat(dst []byte, x float64) []byte {
	if f.plain && f.verb != 'v' {
		prec := f.prec
		verb := f.verb
		if verb == 'F' {
			verb = 'f'
		}
		if prec < 0 && verb != 'g' && verb != 'G' {
			prec = 6
		}
		return strconv.AppendFloat(dst, x, verb, prec, 64)
	}
	return fmt.Appendf(dst, f.spec, x)
}
