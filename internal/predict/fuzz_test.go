package predict

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/trace"
)

// FuzzParse: reading a model file (fragprof model show/predict/advise) never panics
// on any input, and a model it accepts is valid (Check) and predicts without
// panicking. The seed is a real model of a loop whose length is an input.
func FuzzParse(f *testing.F) {
	var traces []*trace.Trace
	for k := 0; k < 8; k++ {
		n := 3 + k
		s := newSynth(uint64(k), "n", n)
		s.point("start", 10)
		for i := 0; i < n; i++ {
			s.point("step", 20, "i", i)
		}
		s.point("end", 5)
		traces = append(traces, s.done())
	}
	opt := DefaultOptions
	opt.Holdout = 0
	m, err := Build(traces, opt)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("{}"))
	f.Add([]byte(`{"nodes": [1, 2]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.model", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.model: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("Parse accepted a model that Check refuses: %v", err)
		}
		var sb strings.Builder
		m.WriteText(&sb)
		in := map[string]float64{}
		for _, v := range m.Inputs {
			in[v] = 4
		}
		m.Predict(in, PredictOptions{Runs: 2, Seed: 1, MaxSteps: 10000})
	})
}
