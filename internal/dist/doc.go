// Package dist implements fragprof's input language: the distributions of a
// program's inputs, the model files that hold them, and the templates that
// turn one trial's drawn values into stdin, argv and input files.
//
// An input is defined by a line
//
//	NAME = DIST [in [lo, hi]]
//
// where DIST is one of uniform(a, b), uniform_int(a, b), normal(mu, sigma),
// lognormal(mu, sigma), exponential(rate), poisson(l), binomial(n, p),
// bernoulli(p), geometric(p), choice(v1, v2, ... [; w1, w2, ...]), const(v),
// array(len, dist), string(len, alphabet), empirical("file"), or one of the
// finite populations file("glob" [; weight = size]), lines("file") and
// rows("file.csv") (population.go, rows.go), the first and last optionally
// stratified, file("glob"; strata = dir, alloc = neyman) (strata.go), or grammar("file.ebnf", start,
// maxdepth), a random sentence of a grammar (grammar.go); a bare number
// or quoted string stands for const, and a bare input name copies that
// input's value. The range "in [lo, hi]" restricts a numeric scalar
// distribution to [lo, hi] exactly (the conditional distribution given
// lo ≤ X ≤ hi). The grammar, every distribution's parameters, support and
// moments, and the model-file format are in docs/inputs.md.
//
// Parse and ParseOptions turn text into a [Model]; ParseFile and ParseTOML read
// a model file into a [File]. A Model is immutable and safe for concurrent use.
// [Model.Draw] and [Model.DrawInto] fill a [Sample] with one trial's values;
// the values of trial i depend only on the seed, i and the input's own
// definition and name (each input draws from its own stream), never on the
// order trials run in or on which worker runs them. The one exception is a
// stratified population under Neyman's allocation, whose trial i also depends on
// the plan of its round ([Schedule.Plan], from the counts of the trials before
// the round; the Schedule is safe for concurrent use). A [Template] renders a
// Sample into a caller's byte buffer.
//
// Errors in the input text are [*Error] values (collected in an [ErrorList])
// that carry the line and column of the offending character and, where one
// is close, a suggestion.
package dist
