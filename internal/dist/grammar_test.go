package dist

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// grammarDraws writes src to a grammar file and draws n derivations of start.
func grammarDraws(t *testing.T, src, start string, depth, n int) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "g.ebnf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ParseOptions(sprintf(`g = grammar("g.ebnf", %s, %d)`, start, depth), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return drawAll(t, m, "{g}", 5, n)
}

// checkProb fails unless k of n is within 5 standard errors of p.
func checkProb(t *testing.T, what string, k, n int, p float64) {
	t.Helper()
	se := math.Sqrt(p * (1 - p) / float64(n))
	if got := float64(k) / float64(n); math.Abs(got-p) > 5*se {
		t.Errorf("%s: %.4f, want %.4f ± %.4f", what, got, p, 5*se)
	}
}

func TestGrammarDistribution(t *testing.T) {
	const n = 20000
	// Weights: "b" @3 against "a".
	b := 0
	for _, s := range grammarDraws(t, `s = "a" | "b" @3 ;`, "s", 10, n) {
		if s == "b" {
			b++
		}
	}
	checkProb(t, `P("b") of "a" | "b" @3`, b, n, 0.75)
	// { x }: k copies with probability 2^-(k+1); [ y ]: present half the time.
	zero, two, opt := 0, 0, 0
	for _, s := range grammarDraws(t, `s = { "x" } [ "y" ] ;`, "s", 10, n) {
		k := strings.Count(s, "x")
		if k == 0 {
			zero++
		}
		if k == 2 {
			two++
		}
		if strings.HasSuffix(s, "y") {
			opt++
		}
	}
	checkProb(t, "P(0 repetitions)", zero, n, 0.5)
	checkProb(t, "P(2 repetitions)", two, n, 0.125)
	checkProb(t, "P(option present)", opt, n, 0.5)
}

func TestGrammarSQL(t *testing.T) {
	m := mustParse(t, `q = grammar("sql.ebnf", query, 6)`)
	shape := regexp.MustCompile(`^SELECT (\*|[abc](, [abc])*) FROM [tu]( WHERE [()ANDNOT abc=0-9]+)?;$`)
	star, where := 0, 0
	const n = 4000
	for _, q := range drawAll(t, m, "{q}", 1, n) {
		if !shape.MatchString(q) {
			t.Fatalf("derivation %q is not a query of the grammar", q)
		}
		if strings.HasPrefix(q, "SELECT *") {
			star++
		}
		if strings.Contains(q, "WHERE") {
			where++
		}
		// cond nests at depths 2, 3, ...: from depth 6 on it is forced to col = num.
		if d := maxNesting(q); d > 5 {
			t.Fatalf("%q nests %d parentheses, beyond maxdepth 6", q, d)
		}
	}
	checkProb(t, `P(cols = "*")`, star, n, 2.0/3)
	checkProb(t, "P(WHERE)", where, n, 0.5)
	// maxdepth 0: every choice forced to the shortest derivation.
	for _, q := range drawAll(t, mustParse(t, `q = grammar("sql.ebnf", query, 0)`), "{q}", 1, 50) {
		if q != "SELECT * FROM t;" && q != "SELECT * FROM u;" {
			t.Fatalf("maxdepth 0 derived %q, want the shortest query", q)
		}
	}
	// Reproducible from (seed, i).
	a, _ := m.Draw(9, 123)
	b, _ := m.Draw(9, 123)
	if a.String() != b.String() {
		t.Fatalf("trial 123 drew %s then %s", a, b)
	}
}

// A tree of empty strings is bounded by the steps, not the output's length.
func TestGrammarSteps(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "g.ebnf"), []byte("s = s s s s @9 | ;"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ParseOptions(`g = grammar("g.ebnf", s, 40)`, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Draw(1, 0); err == nil || !strings.Contains(err.Error(), "more than 16777216 alternatives") {
		t.Fatalf("a supercritical tree of empty strings: %v, want the step limit", err)
	}
}

func maxNesting(s string) int {
	d, most := 0, 0
	for _, c := range s {
		switch c {
		case '(':
			d++
			most = max(most, d)
		case ')':
			d--
		}
	}
	return most
}

func TestGrammarErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`g = grammar("loop.ebnf", expr, 5)`, `grammar "loop.ebnf": line 1: rule 'expr' cannot end`},
		{`g = grammar("sql.ebnf", qurey, 5)`, `grammar "sql.ebnf" has no rule 'qurey' at 1:25 (did you mean 'query'?)`},
		{`g = grammar("sql.ebnf", query, -1)`, `grammar needs maxdepth in [0, 10000], got -1`},
		{`g = grammar("none.ebnf", query, 3)`, `grammar: cannot read "none.ebnf"`},
	} {
		_, err := ParseOptions(c.text, Options{Dir: "testdata"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.text, err, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"a = \"x\" b ;", "line 1: rule 'a' names 'b', which no rule defines"},
		{"a = \"x\"\nb = \"y\" ;", `2:3: expected ';' at the end of rule 'a', got '='`},
		{"a = ( \"x\" ;", `1:11: expected ')', got ';'`},
		{"a = \"x\" @0 ;", "expected a weight > 0 after '@'"},
		{"a = \"x ;", "1:5: unterminated terminal"},
		{"a = 'x' ;\na = 'y' ;", "2:1: rule 'a' defined twice (first at line 1)"},
		{"# nothing\n", "holds no rule"},
	} {
		if _, msg := parseGrammar(c.src); !strings.Contains(msg, c.want) {
			t.Errorf("%q: got %q, want %q", c.src, msg, c.want)
		}
	}
}

// FuzzGrammar parses arbitrary grammar files: no input may panic the parser, and
// every grammar it accepts must derive, from every rule, a finite string at a
// small maxdepth.
func FuzzGrammar(f *testing.F) {
	data, err := os.ReadFile("testdata/sql.ebnf")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(data), `s = "a" | "b" @3 ;`, `s = { "x" } [ "y" ] ( "z" | s ) ;`, "e = \"(\" e \")\" ;", "a = 'x' b ; b = a | ;"} {
		f.Add(s)
	}
	m, err := Parse("x = 1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		rules, msg := parseGrammar(src)
		if msg != "" {
			return
		}
		s := m.NewSample()
		for k := range rules {
			g := &grammarGen{rules: rules, start: k, maxDepth: 3}
			seedStream(&s.pcg, 1, uint64(k), 7)
			steps := 0
			if _, err := g.derive(rules[k].alts, 0, nil, s, &steps); err != nil {
				t.Fatalf("rule %s: %v", rules[k].name, err)
			}
		}
	})
}
