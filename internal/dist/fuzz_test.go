// This file holds the fuzz tests of the parsers: they never panic, and
// what parses reads back from its canonical form.

package dist

import (
	"testing"
)

var fuzzSeeds = []string{
	drawModel,
	"ask = unifrom(1, 2)",
	"x = normal(0, 1) in [-inf, 3]\ny = choice(1, 2; 3, 4)",
	"a = array(n, uniform_int(0, 1e6) in [5, 10])\nn = poisson(3) in [0, 20]",
	"s = string(uniform_int(0, 3), \"é\\x00a\")\nt = s",
	"g = geometric(0.5) in [1, inf]\nb = binomial(30, 0.4) in [20, 25]",
	"x = lognormal(0, 1) in [0.5, 2] # comment\n\n",
	"x = exponential(1e-3) in [10, 20]\nc = const(\"q\")\nk = 0x7fffffffffffffff",
	"x = (",
	"x = uniform(1,\n2)",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseOptions(text, Options{Dir: "testdata"})
		if err != nil {
			if _, ok := err.(ErrorList); !ok {
				t.Fatalf("error %T is not an ErrorList: %v", err, err)
			}
			for _, e := range err.(ErrorList) {
				if e.Line < 1 || e.Col < 1 {
					t.Fatalf("error without a position: %v", e)
				}
			}
			return
		}
		canon := m.String()
		again, err := ParseOptions(canon, Options{Dir: "testdata"})
		if err != nil {
			t.Fatalf("canonical form %q does not parse: %v", canon, err)
		}
		if again.String() != canon {
			t.Fatalf("canonical form changes:\n%s\nthen\n%s", canon, again)
		}
		for k := range m.Inputs {
			if m.Inputs[k].Kind != again.Inputs[k].Kind {
				t.Fatalf("%s: kind %v, then %v", m.Inputs[k].Name, m.Inputs[k].Kind, again.Inputs[k].Kind)
			}
		}
		m.maxLen = 1000 // keep draws small; longer lengths are errors
		s := m.NewSample()
		for i := range uint64(3) {
			if err := m.DrawInto(s, 1, i); err != nil {
				continue
			}
			for k, v := range s.Values {
				if v.Kind != m.Inputs[k].Kind {
					t.Fatalf("%s: drew a %v, kind %v", m.Inputs[k].Name, v.Kind, m.Inputs[k].Kind)
				}
			}
		}
	})
}

func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"{ask}\\n", "{{x}} {a:%5.2f} {s:%q}", "{n:%x}\\x41", "}", "{", "\\", "{ask:%}"} {
		f.Add(s, true)
	}
	m := mustParse(f, "ask = uniform(100, 800)\nn = uniform_int(0, 9)\na = array(3, normal(0, 1))\ns = string(3, \"ab\")")
	s, err := m.Draw(1, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, escapes bool) {
		esc := NoEscapes
		if escapes {
			esc = BackslashEscapes
		}
		tmpl, err := ParseTemplate(text, m, esc)
		if err != nil {
			e := err.(*Error)
			if e.Line < 1 || e.Col < 1 {
				t.Fatalf("error without a position: %v", e)
			}
			return
		}
		tmpl.Append(nil, s)
	})
}

func FuzzParseTOML(f *testing.F) {
	f.Add("seed = 1\nstdin = \"{x}\"\n[inputs]\nx = \"uniform(0, 1)\"\n[files]\na = \"{x}\"")
	f.Add("[inputs]\nx = 1\ny = 2.5\n")
	f.Add("inputs.x = 'array(3, 1)'\nargs = ['{x}']")
	f.Fuzz(func(t *testing.T, text string) {
		file, err := ParseTOML([]byte(text), Options{File: "f.toml", Dir: "testdata"})
		if err != nil {
			return
		}
		if file.Model == nil {
			t.Fatal("no model")
		}
	})
}
