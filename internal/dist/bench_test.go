// This file benchmarks drawing and rendering, once per trial.

package dist

import "testing"

// benchDrawRender draws trial after trial of text and renders tmpl.
func benchDrawRender(b *testing.B, text, tmpl string) {
	m := mustParse(b, text)
	t, err := ParseTemplate(tmpl, m, BackslashEscapes)
	if err != nil {
		b.Fatal(err)
	}
	s := m.NewSample()
	buf := make([]byte, 0, 1<<16)
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		if err := m.DrawInto(s, 1, i); err != nil {
			b.Fatal(err)
		}
		buf = t.Append(buf[:0], s)
		i++
	}
}

// BenchmarkNewton is FreqSys's example: one uniform input on stdin.
func BenchmarkNewton(b *testing.B) {
	benchDrawRender(b, "ask = uniform(100, 800)", `{ask}\n`)
}

// BenchmarkTruncated is a restricted normal and poisson, formatted.
func BenchmarkTruncated(b *testing.B) {
	benchDrawRender(b, "x = normal(0, 1) in [0.5, 3]\nk = poisson(20) in [25, 40]", `{x:%.6f} {k}\n`)
}

// BenchmarkSortArray is the insertion-sort example: a random-length array
// of up to 1000 integers written as text.
func BenchmarkSortArray(b *testing.B) {
	benchDrawRender(b, "n = uniform_int(10, 1000)\na = array(n, uniform_int(0, 1e6))", `{n}\n{a}\n`)
}
