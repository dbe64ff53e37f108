// This file tests the error messages of the input language, exactly.

package dist

import (
	"errors"
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string
	}{
		// A misspelt distribution.
		{"ask = unifrom(1, 2)", "unknown distribution 'unifrom' at 1:7 (did you mean 'uniform'?)"},
		{"x = gaussian(0, 1)", "unknown distribution 'gaussian' at 1:5 (did you mean 'normal'?)"},
		{"x = lognorm(0, 1)", "unknown distribution 'lognorm' at 1:5 (did you mean 'lognormal'?)"},
		{"x = zipf(2)", "unknown distribution 'zipf' at 1:5"},
		// Argument counts.
		{"ask = uniform(1)", "uniform takes 2 arguments (a, b), got 1 at 1:7"},
		{"x = exponential(1, 2)", "exponential takes 1 argument (rate), got 2 at 1:5"},
		{"x = normal()", "normal takes 2 arguments (mu, sigma), got 0 at 1:5"},
		{"x = choice()", "choice takes at least 1 value (v1, v2, ... [; w1, w2, ...]), got 0 at 1:5"},
		{"x = uniform(1, 2; 3)", "only choice takes weights after ';' at 1:17"},
		{"x = choice(1, 2; 3)", "choice has 2 values but 1 weights at 1:16"},
		// Parameters.
		{"x = normal(0, -1)", "normal needs sigma > 0, got -1 at 1:15"},
		{"x = lognormal(0, 0)", "lognormal needs sigma > 0, got 0 at 1:18"},
		{"x = exponential(-2)", "exponential needs rate > 0, got -2 at 1:17"},
		{"p = bernoulli(1.5)", "bernoulli needs p in [0, 1], got 1.5 at 1:15"},
		{"p = binomial(10, -0.1)", "binomial needs p in [0, 1], got -0.1 at 1:18"},
		{"p = binomial(2.5, 0.1)", "binomial needs an integer for n, got 2.5 at 1:14"},
		{"p = geometric(0)", "geometric needs p in (0, 1], got 0 at 1:15"},
		{"x = poisson(0)", "poisson needs l > 0, got 0 at 1:13"},
		{"x = uniform(5, 1)", "uniform needs a < b, got a = 5, b = 1 at 1:16"},
		{"x = uniform(2, 2)", "uniform needs a < b, got a = 2, b = 2 at 1:16 (for a fixed value write const(2))"},
		{"x = uniform_int(0, 0.5)", "uniform_int needs an integer for b, got 0.5 at 1:20"},
		{"x = uniform_int(3, 1)", "uniform_int needs a <= b, got a = 3, b = 1 at 1:20"},
		{"x = uniform(0, inf)", "uniform needs a finite b, got inf at 1:16"},
		{"x = choice(1, \"a\")", "choice values must be all numbers or all strings, got string \"a\" after a number at 1:15"},
		{"x = choice(1, 2; 1, -1)", "choice weights must be finite numbers >= 0, got -1 at 1:21"},
		{"x = choice(1, 2; 0, 0)", "choice weights must have a positive, finite sum at 1:16"},
		{"n = 3\nx = uniform(0, n)", "uniform needs a number for b, got input name 'n' at 2:16 (parameters are numbers; only the length of an array or string may be a name or a distribution)"},
		{"x = const(uniform(0, 1))", "const needs a number or a string, got uniform(0, 1) at 1:11"},
		{"x = string(3, 5)", "string needs a quoted alphabet, got 5 at 1:15 (for example string(8, \"abc\"))"},
		{"x = string(3, \"\")", "string alphabet is empty at 1:15"},
		// Ranges.
		{"x = uniform(0, 1) in [5, 1]", "range [5, 1] is empty (lo > hi) at 1:22"},
		{"x = normal(0, 1) in [100, 200]", "range [100, 200] has probability 0 under normal(0, 1) at 1:21 (widen the range or change the distribution)"},
		{"x = poisson(4) in [40, 50]", "range [40, 50] has probability 3e-26 under poisson(4), below the minimum 1e-09 at 1:19 (widen the range or change the distribution)"},
		{"x = uniform_int(1, 6) in [7, 9]", "range [7, 9] has probability 0 under uniform_int(1, 6) at 1:26 (widen the range or change the distribution)"},
		{"x = const(5) in [6, 7]", "range [6, 7] has probability 0 under const(5) at 1:17 (widen the range or change the distribution)"},
		{"x = array(3, normal(0, 1)) in [0, 1]", "in [lo, hi] restricts a number, but array(3, normal(0, 1)) is a float array at 1:28 (restrict the elements: array(len, DIST in [lo, hi]))"},
		{"n = 3\nx = n in [0, 1]", "in [lo, hi] cannot restrict a copy of input 'n' at 2:7 (restrict the definition of 'n' instead)"},
		{"x = uniform(0, 1) in [0 1]", "expected ',' after the lower bound, got '1' at 1:25 (a range is written in [lo, hi])"},
		{"x = uniform(0, 1) in 0, 1", "expected '[' after 'in', got '0' at 1:22 (a range is written in [lo, hi])"},
		// Names.
		{"x = const(1)\nx = const(2)", "duplicate input 'x' at 2:1 (first defined at 1:1)"},
		{"num = uniform_int(1, 5)\na = array(nmu, 1)", "unknown input 'nmu' at 2:11 (did you mean 'num'?)"},
		{"a = array(b, 1)\nb = array(a, 2)", "input 'a' depends on itself: a -> b -> a at 1:1"},
		{"a = array(a, 1)", "input 'a' depends on itself: a -> a at 1:1"},
		{"x = normal(0, 1)\na = array(x, 1)", "array length 'x' must be an integer input, but x is a float at 2:11"},
		{"n = uniform_int(-1, 5)\na = array(n, 1)", "array length can be negative: 'n' = uniform_int(-1, 5) at 2:11 (restrict it with in [0, ...])"},
		{"a = array(uniform_int(0, 1e9), 1)", "array length can exceed the limit 16777216: uniform_int(0, 1000000000) at 1:11"},
		{"a = array(2.5, 1)", "array length must be a whole number, got 2.5 at 1:11"},
		{"a = array(normal(5, 1), 1)", "array length must be an integer; normal(5, 1) is a float at 1:11"},
		{"n = 3\na = array(3, n)", "array elements need a distribution, not the input 'n' at 2:14 (for example array(n, uniform_int(0, 100)))"},
		{"a = array(3, string(2, \"ab\"))", "array elements must be numbers; string(2, \"ab\") is a string at 1:14"},
		{"a = array(3, array(2, 1))", "array elements must be numbers; array(2, 1) is an int array at 1:14 (arrays do not nest; draw one flat array)"},
		{"inf = const(1)", "'inf' is reserved for infinity and cannot name an input at 1:1"},
		// Syntax.
		{"ask uniform(1, 2)", "expected '=' after 'ask', got 'uniform' at 1:5 (a definition is NAME = DIST)"},
		{"= uniform(1, 2)", "expected an input name, got '=' at 1:1 (a definition is NAME = DIST)"},
		{"x = uniform(1, 2))", "unexpected ')' after the distribution at 1:18 (expected end of line)"},
		{"x = uniform(1, 2) foo", "unexpected 'foo' after the distribution at 1:19 (expected 'in [lo, hi]' or end of line)"},
		{"x = uniform(1, 2) @", "unexpected character '@' at 1:19"},
		{"x = const(1e)", "malformed number '1e' at 1:11"},
		{"x = const(12abc)", "malformed number '12abc' at 1:11"},
		{"x = const(1e999)", "number 1e999 is out of range at 1:11"},
		{"x = const(\"abc)", "unterminated string at 1:11"},
		{"x = const(\"a\\qb\")", "invalid escape in string \"a\\qb\" at 1:11"},
		{"x = uniform(1 2)", "expected ',' or ')' in the arguments of uniform, got '2' at 1:15"},
		{"x = uniform(1,\n2", "expected ',' or ')' in the arguments of uniform, got end of input at 2:2 (the '(' at 1:12 is not closed)"},
		{"x = ", "expected a distribution, number or name, got end of input at 1:5"},
		{"x = -abc", "expected a number after '-', got 'abc' at 1:6"},
		// Positions count characters, not bytes.
		{"# größe\nx = normal(0, 1) → 2", "unexpected character '→' at 2:18"},
		{"x = string(3, \"é\") in [0, 1]", "in [lo, hi] restricts a number, but string(3, \"é\") is a string at 1:20"},
		// Several errors, one per line.
		{"a = unifrom(1, 2)\nb = uniform(1, 2)\nc = normal(0, -1)", "unknown distribution 'unifrom' at 1:5 (did you mean 'uniform'?)\nnormal needs sigma > 0, got -1 at 3:15"},
		{"a = uniform(1, 2))\nb = (", "unexpected ')' after the distribution at 1:18 (expected end of line)\nexpected a distribution, number or name, got '(' at 2:5"},
	} {
		_, err := ParseOptions(tc.text, Options{Dir: "testdata"})
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error %q", tc.text, tc.want)
			continue
		}
		if got := err.Error(); got != tc.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tc.text, got, tc.want)
		}
	}
}

func TestErrorType(t *testing.T) {
	_, err := Parse("ask = unifrom(1, 2)")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not an *Error", err)
	}
	want := Error{Line: 1, Col: 7, Msg: "unknown distribution 'unifrom'", Hint: "did you mean 'uniform'?"}
	if *e != want {
		t.Errorf("got %+v, want %+v", *e, want)
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Errorf("error %v is not an ErrorList of 1", err)
	}
}

func TestEmpiricalErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`x = empirical("missing.txt")`, `empirical: cannot read "missing.txt": no such file or directory at 1:15`},
		{`x = empirical("model.toml")`, `empirical file "model.toml", line 2: "seed" is not a number at 1:15`},
		{`x = empirical(3)`, `empirical needs a quoted file name, got 3 at 1:15 (for example empirical("sizes.txt"))`},
	} {
		_, err := ParseOptions(tc.text, Options{Dir: "testdata"})
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", tc.text, err, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"unifrom", "uniform"},
		{"uniform_itn", "uniform_int"},
		{"normla", "normal"},
		{"poison", "poisson"},
		{"binom", "binomial"},
		{"expo", "exponential"},
		{"randint", "uniform_int"},
		{"geom", "geometric"},
		{"xyz", ""},
		{"a", ""},
	} {
		if got := suggest(tc.name, builtinNames); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
