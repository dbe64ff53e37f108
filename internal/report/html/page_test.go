package html

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testSources serves the examples' sources from testdata, by base name.
func testSources(file string) []string {
	data, err := os.ReadFile(filepath.Join("testdata", filepath.Base(file)))
	if err != nil {
		return nil
	}
	return strings.Split(string(data), "\n")
}

func decodeFile(t *testing.T, name string) *Page {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(data, testSources)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// render writes p and returns the page, failing the test on error.
func render(t *testing.T, p *Page, o Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, p, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// needDot fails the test when Graphviz is missing: the project's set-up installs it
// (scripts/deps.sh), so a missing dot is a broken machine, not a reason to skip.
func needDot(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("dot"); err != nil {
		t.Fatal("Graphviz's dot is not installed (apt-get install graphviz; scripts/deps.sh does)")
	}
}

// lineDiff prints the first lines where two texts differ, with context.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	shown := 0
	for i := 0; i < max(len(a), len(b)) && shown < 20; i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			sb.WriteString("line " + strconv.Itoa(i+1) + ":\n  - " + x + "\n  + " + y + "\n")
			shown++
		}
	}
	return sb.String()
}

// TestNoDot checks the fallback without Graphviz: the page says so and lists the
// blocks, still clickable.
func TestNoDot(t *testing.T) {
	p := decodeFile(t, "newton.freq.json")
	page := string(render(t, p, Options{Dot: filepath.Join(t.TempDir(), "no-dot")}))
	for _, want := range []string{"graphs are shown as lists", `<table class="blocklist">`, `id="n-f0-b1"`, `id="d-f0-b1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page without dot lacks %s", want)
		}
	}
	if strings.Contains(page, `class="cfg-svg"`) {
		t.Error("page without dot has a graph")
	}
}

func TestCompare(t *testing.T) {
	p := decodeFile(t, "newton-large.freq.json")
	p.Compare(decodeFile(t, "newton.freq.json"), "small")
	body := p.Funcs[0].Blocks[1].Diff
	// e(do.body) ≈ 10.68 against ≈ 8.77: a significant rise, far beyond the
	// combined half-width √(0.15² + 0.17²) ≈ 0.23.
	if body == nil || !body.Significant || body.Delta < 1.5 || body.Color == sameColor {
		t.Fatalf("do.body diff %+v", body)
	}
	if entry := p.Funcs[0].Blocks[0].Diff; entry == nil || entry.Delta != 0 || entry.Significant || entry.Color != sameColor {
		t.Errorf("entry diff %+v", entry)
	}
	if m := p.Base.Moves; len(m) != 3 || m[0].Func != "nsqrt" {
		t.Errorf("moves %+v, want the three loop blocks of nsqrt", m)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{"", "hello", "[1, 2]", `{"x": 1}`} {
		if _, err := Decode([]byte(in), nil); err == nil {
			t.Errorf("Decode(%q) succeeded", in)
		}
	}
	if _, err := Decode([]byte(`{"functions": [`), nil); err == nil || !strings.Contains(err.Error(), "JSON") {
		t.Errorf("truncated JSON: %v", err)
	}
}

// TestHotCFG reads the document `fragprof hotcfg` prints (report.GraphJSON): machine
// blocks with sampled counts, drawn like any other, and the graph's totals.
func TestHotCFG(t *testing.T) {
	hot := `{"counters": 0, "runs": 1, "instructions": 1000, "sampled": 120, "functions": [
	  {"name": "loop", "file": "loop.c", "line": 3, "blocks": [
	    {"id": 0, "label": "entry", "lines": [], "instrs": 0, "count": 1},
	    {"id": 1, "label": "0x401000", "lines": [4], "instrs": 4, "addr": 4198400, "count": 10}],
	   "edges": [{"from": 0, "to": 1, "kind": "unconditional", "count": 1},
	             {"from": 1, "to": 1, "kind": "true", "count": 9, "rate": 0.009, "stderr": 0.001}]}],
	  "graph": {"instructions": 1000, "sampled": 120, "batches": 3, "maps": [],
	    "blocks": [{"addr": 4198400, "last": 4198410, "insns": 4, "count": 10.5}],
	    "edges": [{"from": 0, "to": 0, "kind": "true", "count": 9.5}]}}`
	p, err := Decode([]byte(hot), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindHot || *p.Funcs[0].Blocks[1].Value != 10 || p.Files[0].Missing != true {
		t.Errorf("hot page: kind %s, value %v", p.Kind, p.Funcs[0].Blocks[1].Value)
	}
	if pr := p.Funcs[0].Edges[1].Prob; pr == nil || *pr != 0.9 {
		t.Errorf("back edge probability %v, want 9/10", pr)
	}
	facts := map[string]string{}
	for _, f := range p.Summary {
		facts[f.Name] = f.Value
	}
	if facts["instructions"] != "1000" || facts["sampled"] != "120" || facts["batches"] != "3" {
		t.Errorf("hot page facts %v", p.Summary)
	}
}

func TestSplitPos(t *testing.T) {
	for _, tc := range []struct {
		in   string
		file string
		line int
		ok   bool
	}{
		{"examples/newton.c:9:21", "examples/newton.c", 9, true},
		{"a.c:3", "a.c", 3, true},
		{"C:/x/a.c:3:4", "C:/x/a.c", 3, true},
		{"", "", 0, false},
		{"a.c", "", 0, false},
	} {
		f, l, ok := splitPos(tc.in)
		if f != tc.file || l != tc.line || ok != tc.ok {
			t.Errorf("splitPos(%q) = %q, %d, %v", tc.in, f, l, ok)
		}
	}
}

// TestFreqPageDesign: the page states how the trials were drawn, as freq --json says.
func TestFreqPageDesign(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "newton.freq.json"))
	if err != nil {
		t.Fatal(err)
	}
	for design, want := range map[string]string{
		`"design":"latin:16","units":3,`: "Latin hypercube units of 16 trials (3 complete)",
		`"design":"independent",`:        "independent trials",
	} {
		doc := bytes.Replace(data, []byte(`"trials":`), []byte(design+`"trials":`), 1)
		p, err := Decode(doc, testSources)
		if err != nil {
			t.Fatal(err)
		}
		if page := string(render(t, p, Options{})); !strings.Contains(page, want) {
			t.Errorf("design %s: the page does not say %q", design, want)
		}
	}
}

// TestCompareWith: two results of one program are compared, the base titled by its
// file; a result of another program is refused, naming both files, and the page
// is left as it was.
func TestCompareWith(t *testing.T) {
	p := decodeFile(t, "newton-large.freq.json")
	if err := p.CompareWith(decodeFile(t, "newton.freq.json"), "small.json", "large.json"); err != nil {
		t.Fatal(err)
	}
	if p.Base == nil || p.Base.Title != "small.json" || p.Funcs[0].Blocks[1].Diff == nil {
		t.Errorf("compared: base %+v", p.Base)
	}
	q := decodeFile(t, "newton-large.freq.json")
	other := decodeFile(t, "newton.freq.json")
	for i := range other.Funcs {
		other.Funcs[i].Name += "_other"
	}
	err := q.CompareWith(other, "other.json", "large.json")
	want := "--base other.json is a result of another program than large.json: they share no function; compare two results of the same program"
	if err == nil || err.Error() != want {
		t.Errorf("another program: %v, want %q", err, want)
	}
	if q.Base != nil {
		t.Errorf("another program: the page was compared: %+v", q.Base)
	}
}

// TestRender: the bytes Render returns are the page Write writes.
func TestRender(t *testing.T) {
	p := decodeFile(t, "newton.freq.json")
	o := Options{Dot: filepath.Join(t.TempDir(), "no-dot")}
	got, err := Render(p, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := render(t, p, o); !bytes.Equal(got, want) || !bytes.HasPrefix(bytes.TrimSpace(got), []byte("<!DOCTYPE html>")) {
		t.Errorf("Render gave %d bytes starting %.40q, Write %d", len(got), got, len(want))
	}
}
