package instrument

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// FuzzModule: on IR the reader accepts — clang's output of the fixtures in
// testdata, mutated — instrumentation never panics; it either fails with an error or
// gives IR that the reader accepts again, with every function still defined.
func FuzzModule(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.ll"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, scheme uint8) {
		m, err := llvmir.Parse("fuzz.ll", data)
		if err != nil {
			return
		}
		var names []string
		for _, fn := range m.Funcs {
			if m.CFG(fn).Check() != nil {
				return
			}
			names = append(names, fn.Name)
		}
		sch := []Scheme{Chords, Edges, Blocks}[int(scheme)%3]
		if _, err := Module(m, Options{Scheme: sch, Source: "fuzz.c"}); err != nil {
			return
		}
		out, err := llvmir.Parse("out.ll", m.Bytes())
		if err != nil {
			t.Fatalf("instrumented IR does not parse: %v", err)
		}
		defined := map[string]bool{}
		for _, fn := range out.Funcs {
			defined[fn.Name] = true
		}
		for _, n := range names {
			if !defined[n] && n != "main" { // main is renamed
				t.Fatalf("function %s lost by instrumenting", n)
			}
		}
	})
}
