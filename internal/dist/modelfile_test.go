// This file tests model files.

package dist

import (
	"strings"
	"testing"
)

func TestParseFile(t *testing.T) {
	f, err := ParseFile("testdata/model.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasSeed || f.Seed != 42 {
		t.Errorf("seed %d (set %v), want 42", f.Seed, f.HasSeed)
	}
	wantModel := `n = uniform_int(10, 1000)
a = array(n, uniform_int(0, 1000000))
size = empirical("sizes.txt")
r = normal(1, 0.25) in [0, 2]
mode = choice("fast", "slow"; 3, 1)
k = 3
`
	if got := f.Model.String(); got != wantModel {
		t.Errorf("model:\n%s\nwant\n%s", got, wantModel)
	}
	if in := f.Model.Inputs[2]; in.Key != "inputs.size" || in.File != "testdata/model.toml" || in.Kind != KindInt {
		t.Errorf("input size: %+v", in)
	}
	m := f.Model
	s := m.NewSample()
	s.Values[0].Int = 3
	s.Values[1].Ints = []int64{5, 6, 7}
	s.Values[2].Int = 1024
	s.Values[3].Float = 0.98765
	s.Values[4].Bytes = []byte("fast")
	s.Values[5].Int = 3
	render := func(tmpl *Template) string { return string(tmpl.Append(nil, s)) }
	if got := render(f.Stdin); got != "3\n5 6 7\n" {
		t.Errorf("stdin %q", got)
	}
	var args []string
	for _, a := range f.Args {
		args = append(args, render(a))
	}
	if got := strings.Join(args, " "); got != "--size 1024 --ratio=0.988" {
		t.Errorf("args %q", got)
	}
	if len(f.Files) != 1 || f.Files[0].Name != "config.txt" || render(f.Files[0].Template) != "mode=fast\nk=3\n" {
		t.Errorf("files %+v", f.Files)
	}
	if _, err := f.Model.Draw(f.Seed, 0); err != nil {
		t.Error(err)
	}

	// Command-line inputs override the file's, and the templates follow.
	g, err := f.WithInputs("n = 2\nextra = 1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := g.Model.Draw(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(g.Stdin.Append(nil, s2)); !strings.HasPrefix(got, "2\n") || strings.Count(got, " ") != 1 {
		t.Errorf("stdin after override %q", got)
	}
	if f.Model.Inputs[0].Dist != "uniform_int(10, 1000)" {
		t.Error("WithInputs changed the original")
	}
	want := "testdata/model.toml:4: args[2]: format '%.3f' does not suit r, which is string at 1:12 (verbs for string values: %s %q %v %x %X)"
	if _, err := f.WithInputs(`r = string(3, "a")`, Options{}); err == nil || err.Error() != want {
		t.Errorf("override breaking a template:\n got %v\nwant %s", err, want)
	}
}

func TestParseTOMLErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[inputs]\nask = \"unifrom(100, 800)\"", "model.toml:2: inputs.ask: unknown distribution 'unifrom' at 1:1 (did you mean 'uniform'?)"},
		{"[inputs]\n\n# comment\nask   =   'uniform(100,  800'", "model.toml:4: inputs.ask: expected ',' or ')' in the arguments of uniform, got end of input at 1:18"},
		{"inputs.x = \"normal(0, -1)\"", "model.toml:1: inputs.x: normal needs sigma > 0, got -1 at 1:11"},
		{"[inputs]\nx = \"\"\"\nchoice(1, 2,\n       3; 1, 1)\"\"\"", "model.toml:2: inputs.x: choice has 3 values but 2 weights at 2:9"},
		{"[inputs]\n\"a-b\" = \"const(1)\"", "model.toml:2: inputs.a-b: input name 'a-b' is not a name (a letter or _ then letters, digits, _)"},
		{"[inputs]\nx = true", "model.toml:2: inputs.x: an input must be a string holding a distribution, or a number (for example x = \"uniform(0, 1)\")"},
		{"stdn = \"{x}\"\n[inputs]\nx = 1", "model.toml:1: unknown key 'stdn' (did you mean 'stdin'?)"},
		{"[inputs]\nx = 1\n[files]\n\"in.txt\" = \"{y}\"", "model.toml:4: files.\"in.txt\": unknown input 'y' in template at 1:2"},
		{"stdin = \"{x:%d}\"\n[inputs]\nx = 1.5", "model.toml:1: stdin: format '%d' does not suit x, which is float at 1:4 (verbs for float values: %e %E %f %F %g %G %v)"},
		{"seed = -1", "model.toml:1: seed: seed must be >= 0, got -1"},
		{"[inputs\n", "model.toml:2:8: expected '.' or ']' to end table name, but got '\\n' instead"},
		{"[inputs]\na = \"array(b, 1)\"\nb = \"array(a, 1)\"", "model.toml:2: inputs.a: input 'a' depends on itself: a -> b -> a at 1:1"},
	} {
		_, err := ParseTOML([]byte(tc.text), Options{File: "model.toml"})
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseTOML(%q):\n got %v\nwant %s", tc.text, err, tc.want)
		}
	}
}

func TestParseTOMLOrder(t *testing.T) {
	f, err := ParseTOML([]byte("[inputs]\nz = 1\ny = 2.5\nx = \"array(z, 0)\"\n[files]\nb = \"{z}\"\na = \"{y}\""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Model.Names(), " "); got != "z y x" {
		t.Errorf("inputs in order %q, want file order", got)
	}
	if f.Files[0].Name != "b" || f.Files[1].Name != "a" {
		t.Errorf("files %v, want file order", f.Files)
	}
	if f.Model.Inputs[1].Kind != KindFloat || f.Model.Inputs[0].Kind != KindInt {
		t.Errorf("kinds %v %v", f.Model.Inputs[0].Kind, f.Model.Inputs[1].Kind)
	}
	if f.HasSeed || f.Stdin != nil {
		t.Errorf("seed or stdin set without the keys")
	}
}
