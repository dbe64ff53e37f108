package hotcfg

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestBursts(t *testing.T) {
	b := NewBursts(loopCode)
	// Batch 1: four trips round the loop: the back edge is seen 3 times (the last
	// branch has no successor in the batch). Batch 2: the loop exits into the call,
	// which is seen entering 0x9000.
	b.AddBatch(loopBatch(4))
	b.AddBatch(Batch{PCs: []uint64{0x1000, 0x1002, 0x1004, 0x1006, 0x9000, 0x9001}})
	g := b.Graph()
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	want := "0x1000..0x1004 n=3 count=5\n  -> 0x1000 true 3\n  -> 0x1006 false 1\n0x1006..0x1006 n=1 count=1\n  -> 0x9000 call 1\n0x9000..0x9001 n=2 count=1\n"
	if got := g.String(); got != want {
		t.Fatalf("graph:\n%s\nwant:\n%s", got, want)
	}
	// Rate of the back edge: r = (3+0)/(12+6) = 1/6. Cluster standard error:
	// Σ(c_b − r n_b)² = (3−2)² + (0−1)² = 2; sqrt(2/(2·1)) / n̄ = 1/9.
	e := g.Edges[0]
	if math.Abs(e.Rate-1.0/6) > 1e-12 || math.Abs(e.StdErr-1.0/9) > 1e-12 {
		t.Errorf("back edge rate %v ± %v, want 1/6 ± 1/9", e.Rate, e.StdErr)
	}
	// Keep 0.5 keeps only the back edge (3 of 5 observed transitions).
	b.Keep = 0.5
	if g := b.Graph(); len(g.Edges) != 1 {
		t.Errorf("Keep 0.5: %d edges, want 1", len(g.Edges))
	}
}

func TestBurstsCompletion(t *testing.T) {
	// Only 0x1000 is observed; completion decodes 0x1002 and 0x1004 to reach the
	// block's terminator.
	b := NewBursts(loopCode)
	b.AddBatch(Batch{PCs: []uint64{0x1000}})
	g := b.Graph()
	if len(g.Blocks) != 1 || g.Blocks[0].Last != 0x1004 || g.Blocks[0].Insns != 3 {
		t.Fatalf("completion:\n%s", g)
	}
}

// exactLoop is the trace of: enter at 0x1000, loop 3 times, fall out to the call,
// run 0x9000..0x9001 and return to 0x100b.
func exactLoop() *Graph {
	code := InsnTable{}
	for k, v := range loopCode {
		code[k] = v
	}
	code[0x100b] = Insn{Addr: 0x100b, Len: 1, Kind: Return}
	tr := NewTrace(code)
	tr.AddStart(0x1000)
	for i := 0; i < 3; i++ {
		tr.AddRun(0x1000, 0x1004, 3)
		if i < 2 {
			tr.AddTransfer(0x1004, 0x1000)
		} else {
			tr.AddTransfer(0x1004, 0x1006)
		}
	}
	tr.AddRun(0x1006, 0x1006, 1)
	tr.AddTransfer(0x1006, 0x9000)
	tr.AddRun(0x9000, 0x9001, 2)
	tr.AddTransfer(0x9001, 0x100b)
	tr.AddRun(0x100b, 0x100b, 1)
	return tr.Graph()
}

func TestTrace(t *testing.T) {
	g := exactLoop()
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	if g.Instructions != 13 { // 3 trips of 3, the call, 2 in f, the return site
		t.Errorf("instructions = %d, want 13", g.Instructions)
	}
	want := "0x1000..0x1004 n=3 count=3\n  -> 0x1000 true 2\n  -> 0x1006 false 1\n0x1006..0x1006 n=1 count=1\n  -> 0x9000 call 1\n0x100b..0x100b n=1 count=1\n0x9000..0x9001 n=2 count=1\n  -> 0x100b return 1\n"
	if got := g.String(); got != want {
		t.Fatalf("graph:\n%s\nwant:\n%s", got, want)
	}
}

type symbolizerFunc func(uint64) Symbol

func (f symbolizerFunc) Symbolize(a uint64) Symbol { return f(a) }

func TestCompare(t *testing.T) {
	exact := exactLoop()
	// Transitions: back edge 2, exit 1, call 1, return 1: total 5. Hot at 0.5 is the
	// back edge and one of the edges of count 1 (the lowest address first: the exit):
	// 3 ≥ 2.5.
	if h := HotEdges(exact, 0.5); len(h) != 2 || h[0].Count != 2 || h[1].Key() != (EdgeKey{0x1004, 0x1006}) {
		t.Fatalf("hot edges %v", h)
	}
	b := NewBursts(loopCode)
	b.AddBatch(loopBatch(4))
	c := Compare(b.Graph(), exact, 0.5)
	// G holds only the back edge: similarity 1/2, precision 1/1, weighted 2/3.
	if c.Similarity != 0.5 || c.Precision != 1 || math.Abs(c.Weighted-2.0/3) > 1e-12 || c.HotEdges != 2 || c.Edges != 1 {
		t.Errorf("comparison %+v", c)
	}
	if c.SampledFraction != 12.0/13 { // 12 PCs sampled of 13 executed
		t.Errorf("sampled fraction %v, want 12/13", c.SampledFraction)
	}
}

func TestBatchFileRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Info("cmd", "prog a b")
	in := []Batch{
		{Seq: 1, Time: 3 * time.Millisecond, PID: 10, TID: 10, PCs: []uint64{0x1000, 0x1002, 0x1004}},
		{Seq: 2, Time: 6 * time.Millisecond, PID: 10, TID: 11, PCs: []uint64{0x1006, 0x9000}, Stack: []uint64{0x1234, 0x5678}},
	}
	for _, b := range in {
		w.Batch(b, loopCode)
	}
	w.Map(Mapping{0x1000, 0x2000, 0x1000, "/bin/prog"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(bytes.NewReader(append(buf.Bytes(), "future-record 1 2\nb bad\n"...)))
	var out []Batch
	for r.Next() {
		b := r.Batch()
		b.PCs = append([]uint64(nil), b.PCs...)
		out = append(out, b)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("batches: got %+v, want %+v", out, in)
	}
	if len(r.Bad()) != 1 || r.Bad()[0].Line != 13 {
		t.Errorf("bad lines: %v", r.Bad())
	}
	if r.Info()["cmd"] != "prog a b" || len(r.Maps()) != 1 {
		t.Errorf("info %v maps %v", r.Info(), r.Maps())
	}
	for _, pc := range []uint64{0x1000, 0x1004, 0x1006, 0x9000} {
		if got, _ := r.Code().Insn(pc); got != loopCode[pc] {
			t.Errorf("insn %#x = %+v, want %+v", pc, got, loopCode[pc])
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	g := exactLoop()
	g.Maps = Maps{{0x1000, 0xa000, 0, "/bin/prog"}}
	g.Symbolize(symbolizerFunc(func(a uint64) Symbol {
		if a >= 0x9000 {
			return Symbol{Func: "f", Entry: 0x9000}
		}
		return Symbol{Func: "main", Entry: 0x1000}
	}))
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	h := new(Graph)
	if err := json.Unmarshal(data, h); err != nil {
		t.Fatal(err)
	}
	if g.String() != h.String() || h.Instructions != g.Instructions || len(h.Maps) != 1 {
		t.Errorf("round trip:\n%s\nwant:\n%s", h, g)
	}
	if c := Compare(h, g, 1); c.Similarity != 1 || c.Precision != 1 {
		t.Errorf("self-comparison %+v", c)
	}
}

func TestBurstsInfer(t *testing.T) {
	// Four trips round the loop, the last branch without its successor: the back edge
	// is observed 3 times; the exit 0x1004→0x1006 is implied by the code. n_a = 4
	// executions of the branch, o_a = 3 observed successors, k = 2: p = ½/(3+1) = 1/8,
	// count 4/8 = 0.5; Var(p) = p(1−p)/(4+1) = 0.021875, so the standard error of the
	// count is sqrt(16·0.021875 + p²·4) = sqrt(0.4125).
	b := NewBursts(loopCode)
	b.Infer = true
	b.AddBatch(loopBatch(4))
	g := b.Graph()
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	want := "0x1000..0x1004 n=3 count=4\n  -> 0x1000 true 3\n  -> 0x1006 false 0.5\n0x1006..0x1006 n=1 count=0\n"
	if got := g.String(); got != want {
		t.Fatalf("graph:\n%s\nwant:\n%s", got, want)
	}
	back, exit := g.Edges[0], g.Edges[1]
	if back.Inferred || !exit.Inferred {
		t.Errorf("inferred flags: back %v, exit %v", back.Inferred, exit.Inferred)
	}
	if math.Abs(exit.Rate-0.5/12) > 1e-12 || math.Abs(exit.StdErr-math.Sqrt(0.4125)/12) > 1e-12 {
		t.Errorf("exit rate %v ± %v, want %v ± %v", exit.Rate, exit.StdErr, 0.5/12, math.Sqrt(0.4125)/12)
	}
	// Against the exact loop (every edge hot at share 1): the inferred exit is one of
	// the two edges held, and is hot.
	c := Compare(g, exactLoop(), 1)
	if c.Common != 2 || c.Inferred != 1 || c.InferredHot != 1 || c.Similarity != 0.5 {
		t.Errorf("comparison %+v", c)
	}
	// Without inference the exit is missing.
	b.Infer = false
	if c := Compare(b.Graph(), exactLoop(), 1); c.Common != 1 || c.Inferred != 0 {
		t.Errorf("without inference: %+v", c)
	}
	// Keep trims on the estimated counts, inferred ones included: 3 of 3.5 is kept.
	b.Infer, b.Keep = true, 0.5
	if g := b.Graph(); len(g.Edges) != 1 || g.Edges[0].Inferred {
		t.Errorf("Keep 0.5 with inference:\n%s", g)
	}

	// A direct call seen alone implies its target with p = 1, and the callee's block
	// is decoded up to its return.
	b = NewBursts(loopCode)
	b.Infer = true
	b.AddBatch(Batch{PCs: []uint64{0x1006}})
	b.AddBatch(Batch{PCs: []uint64{0x1006}})
	g = b.Graph()
	want = "0x1006..0x1006 n=1 count=2\n  -> 0x9000 call 2\n0x9000..0x9001 n=2 count=0\n"
	if got := g.String(); got != want || !g.Edges[0].Inferred {
		t.Fatalf("call inference:\n%s\nwant:\n%s", got, want)
	}
	// The flag, the rate and its standard error survive JSON.
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	h := new(Graph)
	if err := json.Unmarshal(data, h); err != nil {
		t.Fatal(err)
	}
	if len(h.Edges) != 1 || !h.Edges[0].Inferred || h.Edges[0].Rate != g.Edges[0].Rate || h.Edges[0].StdErr != g.Edges[0].StdErr {
		t.Errorf("JSON round trip lost the inferred flag: %+v", h.Edges)
	}
}

// TestReaderCutLine: a batches file cut in the middle of its last line (a sampler
// killed while writing) is not read as if whole: the cut line, whose last address
// is truncated, is a malformed line with its number, and its batch is left out.
func TestReaderCutLine(t *testing.T) {
	text := Magic + "\nb 1 10 7 7 401000 401004\nb 2 20 7 7 401008 40100c\n"
	for _, tc := range []struct {
		text    string
		batches int
		bad     int // the line number of the malformed line, or 0
	}{
		{text, 2, 0},
		{text[:len(text)-1], 1, 3},
		{text[:len(text)-3], 1, 3},
	} {
		r := NewReader(strings.NewReader(tc.text))
		n := 0
		for r.Next() {
			n++
		}
		bad := 0
		if len(r.Bad()) == 1 && strings.Contains(r.Bad()[0].Msg, "cut short") {
			bad = r.Bad()[0].Line
		}
		if n != tc.batches || bad != tc.bad || len(r.Bad()) > 1 {
			t.Errorf("%q: %d batches, malformed %v; want %d batches, line %d cut", tc.text, n, r.Bad(), tc.batches, tc.bad)
		}
	}
}

// TestCheckOptions: each option a hot CFG's build cannot use is named as its flag,
// the first fault first; the defaults pass.
func TestCheckOptions(t *testing.T) {
	if err := CheckOutput("bursts", "json"); err != nil {
		t.Errorf("bursts, json: %v", err)
	}
	if err := CheckBuild(false, "", 0.9, DefaultParams, 0, 0); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	for _, c := range []struct {
		got  error
		want string
	}{
		{CheckOutput("gcc", "svg"), `--algo "gcc": want gfc or bursts`},
		{CheckOutput("gfc", "svg"), `--format "svg": want json, dot, pprof or profile`},
		{CheckBuild(true, "", 0, DefaultParams, -1, -1), "--sweep needs --compare EXACT"},
		{CheckBuild(true, "e.cfg", 1.5, DefaultParams, 0, 0), "--hot 1.5: want a share in (0, 1]"},
		{CheckBuild(false, "", 0, DefaultParams, 0, 0), "--hot 0: want a share in (0, 1]"},
		{CheckBuild(false, "", 1, Params{WindowSize: 0}, 0, 0), "--window must be positive"},
		{CheckBuild(false, "", 1, Params{WindowSize: 5, Recurrent: -1}, 0, 0), "--window must be positive"},
		{CheckBuild(false, "", 1, DefaultParams, -2, 0), "--top must be positive"},
		{CheckBuild(false, "", 1, DefaultParams, 3, -1), "--first must be positive"},
	} {
		if c.got == nil || c.got.Error() != c.want {
			t.Errorf("%v, want %q", c.got, c.want)
		}
	}
}

// TestComparisonSummary: the one line and the JSON object of a comparison.
func TestComparisonSummary(t *testing.T) {
	c := Comparison{Similarity: 0.875, Precision: 0.5, Weighted: 0.9921, SampledFraction: 0.000123, Common: 7, HotEdges: 8, Edges: 14}
	want := "similarity 87.5% (7 of 8 hot edges), precision 50.0%, weighted 99.2%, sampled 0.0123% of instructions"
	if got := c.Summary(); got != want {
		t.Errorf("Summary:\n got %s\nwant %s", got, want)
	}
	var b strings.Builder
	if err := c.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "{\n \"similarity\": 0.875,\n \"precision\": 0.5,") || !strings.Contains(b.String(), "\n \"hot_edges\": 8,\n") {
		t.Errorf("WriteJSON:\n%s", b.String())
	}
	var back Comparison
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back != c {
		t.Errorf("WriteJSON read back: %+v, %v; want %+v", back, err, c)
	}
}

// TestBuilderReadExact: no name reads nothing; a missing file is an error naming it.
func TestBuilderReadExact(t *testing.T) {
	var b Builder
	if err := b.ReadExact(""); err != nil || b.Exact != nil {
		t.Errorf("no name: %v, exact %v", err, b.Exact)
	}
	missing := filepath.Join(t.TempDir(), "exact.cfg")
	if err := b.ReadExact(missing); err == nil || !strings.Contains(err.Error(), missing) || b.Exact != nil {
		t.Errorf("missing file: %v, exact %v", err, b.Exact)
	}
}
