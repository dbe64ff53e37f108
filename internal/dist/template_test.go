// This file tests templates: rendering, formats, escapes and errors.

package dist

import (
	"fmt"
	"math"
	"testing"
)

// tmplSample returns a model and a Sample with fixed values.
func tmplSample(t *testing.T) (*Model, *Sample) {
	m := mustParse(t, "ask = uniform(100, 800)\nn = uniform_int(0, 9)\na = array(3, uniform_int(0, 9))\nf = array(2, uniform(0, 1))\ns = string(3, \"ab\")\nbig = const(1e20)")
	s := m.NewSample()
	s.Values[0].Float = 123.456
	s.Values[1].Int = -42
	s.Values[2].Ints = []int64{1, 22, 333}
	s.Values[3].Floats = []float64{0.5, 1.25}
	s.Values[4].Bytes = []byte(`a"b`)
	s.Values[5].Float = 1e20
	return m, s
}

func TestTemplate(t *testing.T) {
	m, s := tmplSample(t)
	for _, tc := range []struct {
		text string
		esc  Escapes
		want string
	}{
		{`{ask}\n`, BackslashEscapes, "123.456\n"},
		{`{ask}\n`, NoEscapes, `123.456\n`},
		{"{n} {a} {f}", NoEscapes, "-42 1 22 333 0.5 1.25"},
		{"{ask:%.2f}|{ask:%e}|{ask:%g}|{ask:%.1e}|{ask:%8.2f}|{ask:%-9.1f}|{ask:%v}", NoEscapes, "123.46|1.234560e+02|123.456|1.2e+02|  123.46|123.5    |123.456"},
		{"{n:%d}|{n:%5d}|{n:%-5d}|{n:%05d}|{n:%x}|{n:%X}|{n:%o}|{n:%b}|{n:%.2f}|{n:%+d}", NoEscapes, "-42|  -42|-42  |-0042|-2a|-2A|-52|-101010|-42.00|-42"},
		{"{a:%03d}", NoEscapes, "001 022 333"},
		{"{f:%.3f}", NoEscapes, "0.500 1.250"},
		{"{s}|{s:%q}|{s:%5s}|{s:%x}", NoEscapes, `a"b|"a\"b"|  a"b|612262`},
		{"{big}|{big:%.0f}", NoEscapes, "1e+20|100000000000000000000"},
		{"{{ask}} {{{ask}}} }}", NoEscapes, "{ask} {123.456} }"},
		{`\t\r\0\\\"\'\x41\x7e`, BackslashEscapes, "\t\r\x00\\\"'A~"},
		{`é{n}ü`, BackslashEscapes, "é-42ü"},
		{"line1\n{n}\n", NoEscapes, "line1\n-42\n"},
		{"", NoEscapes, ""},
	} {
		tmpl, err := ParseTemplate(tc.text, m, tc.esc)
		if err != nil {
			t.Errorf("ParseTemplate(%q): %v", tc.text, err)
			continue
		}
		if got := string(tmpl.Append(nil, s)); got != tc.want {
			t.Errorf("%q (%v):\n got %q\nwant %q", tc.text, tc.esc, got, tc.want)
		}
		if tmpl.String() != tc.text {
			t.Errorf("String() = %q, want %q", tmpl.String(), tc.text)
		}
	}
	tmpl, _ := ParseTemplate("{n} {a} {n} {s}", m, NoEscapes)
	if got := fmt.Sprint(tmpl.Names()); got != "[n a s]" {
		t.Errorf("Names() = %s", got)
	}
	// Append appends.
	if got := string(tmpl.Append([]byte("x="), s)); got != `x=-42 1 22 333 -42 a"b` {
		t.Errorf("Append to a prefix: %q", got)
	}
}

func TestTemplateErrors(t *testing.T) {
	m, _ := tmplSample(t)
	for _, tc := range []struct {
		text string
		esc  Escapes
		want string
	}{
		{"{ak}", NoEscapes, "unknown input 'ak' in template at 1:2 (did you mean 'ask'?)"},
		{"x\n  {zz}", NoEscapes, "unknown input 'zz' in template at 2:4"},
		{"{ask", NoEscapes, "unclosed '{' in template at 1:1 (write {{ for a literal '{')"},
		{"{ask\n}", NoEscapes, "unclosed '{' in template at 1:1 (write {{ for a literal '{')"},
		{"ask}", NoEscapes, "single '}' in template at 1:4 (write }} for a literal '}')"},
		{"{}", NoEscapes, "empty field '{}' in template at 1:2 (write {{ for a literal '{')"},
		{"{a b}", NoEscapes, "bad input name 'a b' in template at 1:2"},
		{"{ask:%d}", NoEscapes, "format '%d' does not suit ask, which is float at 1:6 (verbs for float values: %e %E %f %F %g %G %v)"},
		{"{s:%f}", NoEscapes, "format '%f' does not suit s, which is string at 1:4 (verbs for string values: %s %q %v %x %X)"},
		{"{f:%d}", NoEscapes, "format '%d' does not suit f, which is float array at 1:4 (verbs for float values: %e %E %f %F %g %G %v)"},
		{"{ask:.3f}", NoEscapes, "format '.3f' does not start with '%' at 1:6 (a format is one printf verb, e.g. {x:%.3f} or {n:%5d})"},
		{"{ask:%.3f %d}", NoEscapes, "bad format '%.3f %d' at 1:6 (a format is one printf verb, e.g. {x:%.3f} or {n:%5d})"},
		{"{ask:%}", NoEscapes, "bad format '%' at 1:6 (a format is one printf verb, e.g. {x:%.3f} or {n:%5d})"},
		{"{n:%999999999d}", NoEscapes, "width 999999999 in format '%999999999d' is too large at 1:4 (at most 1000)"},
		{"{n:%99999999999999999999d}", NoEscapes, "width 99999999999999999999 in format '%99999999999999999999d' is too large at 1:4 (at most 1000)"},
		{`{ask}\q`, BackslashEscapes, `unknown escape '\q' in template at 1:6 (escapes are \n \t \r \0 \\ \" \' \xHH)`},
		{`{ask}\x4`, BackslashEscapes, `\x needs two hex digits at 1:6 (escapes are \n \t \r \0 \\ \" \' \xHH)`},
		{`{ask}\`, BackslashEscapes, `template ends with a lone '\' at 1:6 (escapes are \n \t \r \0 \\ \" \' \xHH)`},
	} {
		_, err := ParseTemplate(tc.text, m, tc.esc)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseTemplate(%q):\n got %v\nwant %s", tc.text, err, tc.want)
		}
	}
}

// TestFormatFastPath checks that the strconv fast paths print exactly what
// fmt prints.
func TestFormatFastPath(t *testing.T) {
	floats := []float64{0, -0.0, 1, -1, 0.1, 123.456, 1e-7, 1e21, 123456789.125, -2.5e-300, math.Inf(1), math.NaN(), 1e6, 0.000123}
	ints := []int64{0, 1, -1, 42, -42, math.MaxInt64, math.MinInt64, 1 << 53}
	in := Input{Name: "x", Kind: KindFloat}
	for _, spec := range []string{"%f", "%.0f", "%.3f", "%e", "%.2e", "%E", "%g", "%.3g", "%G", "%F", "%v", "%8.2f"} {
		f, msg, _ := parseFormat(spec, in)
		if msg != "" {
			t.Fatal(msg)
		}
		for _, x := range floats {
			if got, want := string(f.appendFloat(nil, x)), fmt.Sprintf(spec, x); got != want {
				t.Errorf("%s of %v: got %q, fmt gives %q", spec, x, got, want)
			}
		}
	}
	in.Kind = KindInt
	for _, spec := range []string{"%d", "%v", "%x", "%X", "%5d", "%.2f", "%e", "%g"} {
		f, msg, _ := parseFormat(spec, in)
		if msg != "" {
			t.Fatal(msg)
		}
		for _, x := range ints {
			want := fmt.Sprintf(spec, x)
			if f.toFloat {
				want = fmt.Sprintf(spec, float64(x))
			}
			if got := string(f.appendInt(nil, x)); got != want {
				t.Errorf("%s of %v: got %q, fmt gives %q", spec, x, got, want)
			}
		}
	}
}

func TestTemplateOtherModel(t *testing.T) {
	m, _ := tmplSample(t)
	other := mustParse(t, "ask = 1")
	tmpl, _ := ParseTemplate("{ask}", m, NoEscapes)
	defer func() {
		if recover() == nil {
			t.Error("Append with another model's Sample did not panic")
		}
	}()
	tmpl.Append(nil, other.NewSample())
}
