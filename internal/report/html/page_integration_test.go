//go:build integration

package html

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGolden checks the data embedded in the page of every kind of input against
// testdata/*.golden.json; -update rewrites them. The inputs were written by
// fragprof itself: newton.freq.json by
//
//	fragprof freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' \
//	    --eps 0.3 --berry-esseen signed --json
//
// newton-large.freq.json the same with uniform(1000, 8000), newton.count.json by
// `echo 400 | fragprof count examples/newton.c --json`, time.json and compose.json
// by `fragprof time examples/lab.c --fragment program --arg A --arg 7 --reps 50 --json`
// and `fragprof compose examples/lab.c --scheme A --reps 100 --json`.
func TestGolden(t *testing.T) {
	needDot(t)
	for _, tc := range []struct {
		name, file, base string
	}{
		{"freq", "newton.freq.json", ""},
		{"count", "newton.count.json", ""},
		{"compare", "newton-large.freq.json", "newton.freq.json"},
		{"compare-count", "newton.count.json", "newton.freq.json"},
		{"time", "time.json", ""},
		{"compose", "compose.json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeFile(t, tc.file)
			if tc.base != "" {
				p.Compare(decodeFile(t, tc.base), tc.base)
			}
			page := render(t, p, Options{})
			data, err := Data(page)
			if err != nil {
				t.Fatal(err)
			}
			// What is embedded is the page's data, and nothing else.
			want, _ := json.Marshal(p)
			if !bytes.Equal(data, want) {
				t.Errorf("embedded data differ from the Page")
			}
			var got bytes.Buffer
			if err := json.Indent(&got, data, "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			golden := filepath.Join("testdata", tc.name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			exp, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -tags integration -run TestGolden -update)", err)
			}
			if !bytes.Equal(got.Bytes(), exp) {
				t.Errorf("page data differ from %s (go test -tags integration -run TestGolden -update rewrites it):\n%s", golden, lineDiff(string(exp), got.String()))
			}
		})
	}
}

// TestFreqPage checks what the page of Newton's estimates shows: the right number of
// nodes per graph, the states and marks, the loop body's panel with its convergence
// plot, the hot source lines.
func TestFreqPage(t *testing.T) {
	needDot(t)
	p := decodeFile(t, "newton.freq.json")
	page := string(render(t, p, Options{}))
	nodes := regexp.MustCompile(`<g id="n-f(\d+)-b\d+" class="node blk`).FindAllStringSubmatch(page, -1)
	per := map[string]int{}
	for _, m := range nodes {
		per[m[1]]++
	}
	if per["0"] != 6 || per["1"] != 4 {
		t.Errorf("graph nodes per function: %v, want nsqrt 6 and main 4", per)
	}
	body := p.Funcs[0].Blocks[1]
	if body.Label != "do.body" || body.State != "converged" || body.HalfWidth == nil || len(body.Series) == 0 {
		t.Fatalf("do.body: %+v", body)
	}
	for _, want := range []string{
		`id="d-f0-b1"`,                  // its panel
		`id="p-f0-b1"`,                  // its convergence plot
		`<svg class="plot convergence"`, // drawn by gonum/plot
		`class="node blk st-constant"`,  // marked states
		`class="node blk st-converged"`, //
		`✓ converged @31`,               // the state in the label
		`id="L0-12" class="code hot"`,   // the loop's lines are hot
		`id="L0-21" class="code never"`, // the error path never ran
		`<script type="application/json" id="fragprof-data">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Self-contained: nothing is fetched.
	for _, bad := range []string{`src="http`, `href="http`, `<link `, `@import`, `url(http`} {
		if strings.Contains(page, bad) {
			t.Errorf("page refers to an external resource: %s", bad)
		}
	}
}
