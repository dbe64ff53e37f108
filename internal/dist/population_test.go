package dist

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// drawAll draws trials 0..n-1 of m under seed and returns, per trial, the
// rendered template.
func drawAll(t *testing.T, m *Model, tmpl string, seed uint64, n int) []string {
	t.Helper()
	tp, err := ParseTemplate(tmpl, m, NoEscapes)
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewSample()
	var out []string
	for i := range n {
		if err := m.DrawInto(s, seed, uint64(i)); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(tp.Append(nil, s)))
	}
	return out
}

func TestFileGlobAndTemplates(t *testing.T) {
	m := mustParse(t, `f = file("corpus/**/*.sql")`)
	ps := m.Populations()
	if len(ps) != 1 || ps[0].Size != 3 || ps[0].Weighted || ps[0].Input != "f" || len(ps[0].Digest) != 64 {
		t.Fatalf("Populations = %+v, want the 3 .sql files (not notes.txt) unweighted", ps)
	}
	names := drawAll(t, m, "{f:name}", 7, 3)
	got := strings.Join(sortedCopy(names), " ")
	if got != "a.sql b.sql c.sql" {
		t.Fatalf("trials 0..2 drew %v, want each .sql file once", names)
	}
	abs, _ := filepath.Abs("testdata/corpus/sub/b.sql")
	for _, line := range drawAll(t, m, "{f}|{f:path}|{f:name}|{f:size}|{f:contents}", 7, 3) {
		parts := strings.Split(line, "|")
		if parts[2] != "b.sql" {
			continue
		}
		want := []string{abs, abs, "b.sql", "33", "SELECT name FROM t WHERE id = 2;\n"}
		if strings.Join(parts, "|") != strings.Join(want, "|") {
			t.Fatalf("b.sql rendered %q, want %q", parts, want)
		}
		return
	}
	t.Fatal("b.sql never drawn")
}

func sortedCopy(xs []string) []string { return slices.Sorted(slices.Values(xs)) }

// Without replacement: every epoch of N trials holds each item once, trial i's
// item depends on (seed, i) only, and seeds shuffle differently.
func TestPopulationWithoutReplacement(t *testing.T) {
	m := mustParse(t, `q = lines("queries.txt")`)
	if n := m.FinitePopulation(); n != 4 {
		t.Fatalf("FinitePopulation = %d, want the 4 lines", n)
	}
	all := drawAll(t, m, "{q}", 3, 12)
	for e := range 3 {
		got := strings.Join(sortedCopy(all[4*e:4*e+4]), "|")
		if got != "|SELECT 1|SELECT 2|SELECT 4" {
			t.Fatalf("epoch %d drew %q, want each line (blank one included, \\r dropped) once", e, all[4*e:4*e+4])
		}
	}
	if strings.Join(all[:4], "|") == strings.Join(all[4:8], "|") && strings.Join(all[4:8], "|") == strings.Join(all[8:], "|") {
		t.Errorf("three epochs drew the same order %q: epochs must be shuffled anew", all[:4])
	}
	// Trial 9 alone, on a fresh sample, is trial 9 of the sequence.
	s, err := m.Draw(3, 9)
	if err != nil || string(s.Values[0].Bytes) != all[9] {
		t.Fatalf("trial 9 alone = %q (%v), in sequence %q", s.Values[0].Bytes, err, all[9])
	}
	// Shards of disjoint trial numbers draw disjoint items within an epoch.
	odd, even := map[string]bool{}, map[string]bool{}
	for i, v := range all[:4] {
		if i%2 == 0 {
			even[v] = true
		} else {
			odd[v] = true
		}
	}
	for v := range odd {
		if even[v] {
			t.Errorf("shards 0/2 and 1/2 both drew %q in epoch 0", v)
		}
	}
	differ := false
	for seed := uint64(4); seed < 10 && !differ; seed++ {
		differ = strings.Join(drawAll(t, m, "{q}", seed, 4), "|") != strings.Join(all[:4], "|")
	}
	if !differ {
		t.Error("six seeds drew the lines in the same order")
	}
}

func TestFileWeightSize(t *testing.T) {
	m := mustParse(t, `f = file("corpus/**/*.sql"; weight = size)`)
	if ps := m.Populations(); !ps[0].Weighted || m.FinitePopulation() != 0 {
		t.Fatalf("weighted file: Populations %+v, FinitePopulation %d; want weighted, no finite population", ps, m.FinitePopulation())
	}
	if got := m.String(); got != "f = file(\"corpus/**/*.sql\"; weight = size)\n" {
		t.Fatalf("String = %q", got)
	}
	const n = 20000
	count := map[string]float64{}
	for _, name := range drawAll(t, m, "{f:name}", 1, n) {
		count[name]++
	}
	// sizes 10, 33, 66: probabilities 10/109, 33/109, 66/109.
	for name, size := range map[string]float64{"a.sql": 10, "b.sql": 33, "c.sql": 66} {
		p := size / 109
		sd := math.Sqrt(p * (1 - p) / n)
		if d := count[name]/n - p; d > 5*sd || d < -5*sd {
			t.Errorf("%s drawn %.4f of the time, want %.4f ± %.4f", name, count[name]/n, p, 5*sd)
		}
	}
}

func TestPopulationErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`f = file("corpus/**/*.c")`, `file pattern "corpus/**/*.c" matches no file at 1:10`},
		{`f = file("nowhere/*.sql")`, `file pattern "nowhere/*.sql" matches no file: its directory does not exist`},
		{`f = file("corpus/*.sql"; weight = 2)`, `file weight must be size, got 2`},
		{`f = file("corpus/*.sql"; size)`, `file takes only the options weight = size, strata and alloc`},
		{`q = lines("missing.txt")`, `lines: cannot read "missing.txt"`},
		{`r = rows("ragged.csv")`, `rows file "ragged.csv", line 3: wrong number of fields`},
		{`r = rows("badkind.csv")`, `rows file "badkind.csv", line 3: column 'n': "2.5" is not an int`},
		{"r = rows(\"calls.csv\")\nn = const(1)", `duplicate input 'n' at 2:1 (first defined as a column of rows input r at 1:1)`},
		{`x = array(3, weight = 2)`, `'weight = …' is an option of file() and rows() only`},
	} {
		_, err := ParseOptions(c.text, Options{Dir: "testdata"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.text, err, c.want)
		}
	}
	m := mustParse(t, "f = file(\"corpus/*.sql\")\nn = 3")
	for _, c := range []struct{ tmpl, want string }{
		{"{f:lines}", "unknown part 'lines' of file input f"},
		{"{n:contents}", "':contents' is a part of a file() input, but n is 3"},
	} {
		if _, err := ParseTemplate(c.tmpl, m, NoEscapes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.tmpl, err, c.want)
		}
	}
}

func TestRows(t *testing.T) {
	m := mustParse(t, `call = rows("calls.csv")`)
	want := map[string]Kind{"call": KindInt, "n": KindInt, "alpha": KindFloat, "mode": KindString}
	for name, k := range want {
		j, ok := m.Lookup(name)
		if !ok || m.Inputs[j].Kind != k {
			t.Fatalf("input %s: found %v, kind %v; want %v", name, ok, m.Inputs[j].Kind, k)
		}
	}
	if m.FinitePopulation() != 3 {
		t.Fatalf("FinitePopulation = %d, want 3 rows", m.FinitePopulation())
	}
	// Correlations kept: each trial is one whole row.
	rows := drawAll(t, m, "{call}:{n},{alpha},{mode}", 11, 3)
	got := strings.Join(sortedCopy(rows), " ")
	if got != "1:10,0.5,fast 2:200,1.25,slow 3:3,2,fast" {
		t.Fatalf("trials drew %q, want each row whole, once", rows)
	}
	// String prints the rows line only, and reads back to the same model.
	if m.String() != "call = rows(\"calls.csv\")\n" {
		t.Fatalf("String = %q", m.String())
	}
	m2, err := m.With("extra = 2", Options{Dir: "testdata"})
	if err != nil || len(m2.Inputs) != 5 {
		t.Fatalf("With: %v, %d inputs; want the 4 and extra", err, len(m2.Inputs))
	}
	if m2.FinitePopulation() != 3 {
		t.Error("a constant beside the rows keeps the population finite")
	}
	m3, err := m.With("extra = uniform(0, 1)", Options{Dir: "testdata"})
	if err != nil || m3.FinitePopulation() != 0 {
		t.Errorf("a random input beside the rows: FinitePopulation = %d (%v), want 0", m3.FinitePopulation(), err)
	}
	// Declared kinds.
	dir := t.TempDir()
	csv := filepath.Join(dir, "k.csv")
	if err := os.WriteFile(csv, []byte("id:string,w:float\n7,1\n8,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	md, err := Parse(`r = rows("` + csv + `")`)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := md.Lookup("id"); md.Inputs[j].Kind != KindString {
		t.Errorf("id declared string is %v", md.Inputs[j].Kind)
	}
	if j, _ := md.Lookup("w"); md.Inputs[j].Kind != KindFloat {
		t.Errorf("w declared float is %v", md.Inputs[j].Kind)
	}
}

// The digest names the population: it is stable and changes with a file.
func TestPopulationDigest(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"x/a.txt": "one", "x/y/b.txt": "two"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A symbolic link to a file is a file of the corpus.
	if err := os.Symlink(filepath.Join(dir, "x/a.txt"), filepath.Join(dir, "x/y/link.txt")); err != nil {
		t.Fatal(err)
	}
	text := `f = file("x/**/*.txt")`
	if m, err := ParseOptions(text, Options{Dir: dir}); err != nil || m.Populations()[0].Size != 3 {
		t.Fatalf("a.txt, b.txt and the link: %v", err)
	}
	digest := func() string {
		m, err := ParseOptions(text, Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return m.Populations()[0].Digest
	}
	d1, d2 := digest(), digest()
	if d1 != d2 {
		t.Fatalf("digest not stable: %s, %s", d1, d2)
	}
	if err := os.WriteFile(filepath.Join(dir, "x/y/b.txt"), []byte("TWO"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d3 := digest(); d3 == d1 {
		t.Fatal("changing a file's contents left the digest unchanged")
	}
}

// A model file's populations are taken from its directory, and its templates
// use file parts and columns.
func TestPopulationModelFile(t *testing.T) {
	f, err := ParseFile("testdata/corpus.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Model.String(); got != "f = file(\"corpus/**/*.sql\")\ncall = rows(\"calls.csv\")\n" {
		t.Fatalf("model %q", got)
	}
	if n := f.Model.FinitePopulation(); n != 0 {
		t.Errorf("two populations: FinitePopulation = %d, want 0 (their product is not drawn without replacement)", n)
	}
	s, err := f.Model.Draw(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := string(f.Args[0].Append(nil, s))
	data, err := os.ReadFile(path)
	if err != nil || string(f.Files[0].Template.Append(nil, s)) != string(data) {
		t.Fatalf("{f} = %q (%v) and {f:contents} disagree", path, err)
	}
	if n := string(f.Args[1].Append(nil, s)); n != "-n=10" && n != "-n=200" && n != "-n=3" {
		t.Errorf("-n={n} rendered %q", n)
	}
	if !strings.Contains(s.Items(), `f = file "`+path+`"`) || !strings.Contains(s.Items(), `call = row `) {
		t.Errorf("Items() = %q, want the file and the row", s.Items())
	}
	if _, err := ParseTOML([]byte("[inputs]\nf = 'file(\"nothing/*.x\")'\n"), Options{File: "m.toml", Dir: "testdata"}); err == nil ||
		!strings.Contains(err.Error(), `m.toml:2: inputs.f: file pattern "nothing/*.x" matches no file: its directory does not exist`) {
		t.Errorf("empty glob in a model file: %v", err)
	}
}

// TestExhaustive: a model --exhaustive can run through is one population drawn
// without replacement with constants and its own columns beside it; every other
// model is refused with the input in the way named.
func TestExhaustive(t *testing.T) {
	for _, c := range []struct {
		model string
		size  int
		err   string // "" for a model that can be run through
	}{
		{`call = rows("calls.csv")`, 3, ""},
		{"call = rows(\"calls.csv\")\nk = 7\nmode2 = choice(\"x\")", 3, ""},
		{`f = file("corpus/**/*.sql")`, 3, ""},
		{`q = lines("queries.txt")`, 4, ""},
		{`x = uniform(0, 1)`, 0, "no finite population"},
		{`f = file("corpus/**/*.sql"; weight = size)`, 0, "input f draws its 3 items with replacement, weighted by size"},
		{"f = file(\"corpus/**/*.sql\")\nq = lines(\"queries.txt\")", 0, "inputs f and q are two populations"},
		{"call = rows(\"calls.csv\")\nx = normal(0, 1)", 0, "input x = normal(0, 1) is a continuous input besides the population call"},
		{"call = rows(\"calls.csv\")\nk = poisson(3)", 0, "input k = poisson(3) is an input on infinitely many values"},
		{"call = rows(\"calls.csv\")\nk = uniform_int(1, 3)", 0, "input k = uniform_int(1, 3) is a random input"},
	} {
		m := mustParse(t, c.model)
		p, err := m.Exhaustive()
		switch {
		case c.err == "" && (err != nil || p.Size != c.size):
			t.Errorf("%q: %+v, %v; want a population of %d", c.model, p, err, c.size)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v; want one saying %q", c.model, err, c.err)
		}
		if n := m.FinitePopulation(); n != c.size {
			t.Errorf("%q: FinitePopulation = %d, want %d", c.model, n, c.size)
		}
	}
}
