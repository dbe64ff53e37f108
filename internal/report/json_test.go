package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// ratesProfile is a function of three blocks whose entry branches to the two
// others, counted 4 = 3 + 1, with the rates of a sampled profile on its edges:
// the first estimated, the second inferred without an estimate.
func ratesProfile() *profile.Profile {
	f := &cfg.Func{Name: "main", File: "t.c", Line: 1}
	a, b, c := f.AddBlock("a"), f.AddBlock("b"), f.AddBlock("c")
	f.AddEdge(a, b, cfg.True, "")
	f.AddEdge(a, c, cfg.False, "")
	p := &profile.Profile{Program: &cfg.Program{Funcs: []*cfg.Func{f}}, Runs: 1,
		Counts: []cfg.Counts{{Blocks: []uint64{4, 3, 1}, Edges: []uint64{3, 1}}}}
	p.Rates = &profile.Rates{Instructions: 800, Sampled: 40, Edges: [][]profile.EdgeRate{{
		{Estimated: true, Rate: 0.375, StdErr: 0.0625},
		{Inferred: true},
	}}}
	return p
}

// TestJSONRates: the JSON of a sampled profile carries its instructions and samples
// and every edge's rate, standard error and inferred mark; without rates it has
// none of these fields.
func TestJSONRates(t *testing.T) {
	p := ratesProfile()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"instructions": 800,`, `"sampled": 40,`,
		`"count": 3,
          "rate": 0.375,
          "stderr": 0.0625
        }`,
		`"count": 1,
          "inferred": true
        }`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, buf.String())
		}
	}
	p.Rates = nil
	buf.Reset()
	if err := WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"instructions", "sampled", "rate", "stderr", "inferred"} {
		if strings.Contains(buf.String(), `"`+field+`"`) {
			t.Errorf("JSON of a profile without rates has %q:\n%s", field, buf.String())
		}
	}
}
