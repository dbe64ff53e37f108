package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
)

// loopCode is a loop at 0x1000..0x1004 whose exit calls 0x9000..0x9001.
var loopCode = hotcfg.InsnTable{
	0x1000: {Addr: 0x1000, Len: 2, Kind: hotcfg.Other},
	0x1002: {Addr: 0x1002, Len: 2, Kind: hotcfg.Other},
	0x1004: {Addr: 0x1004, Len: 2, Kind: hotcfg.CondBranch, Target: 0x1000},
	0x1006: {Addr: 0x1006, Len: 5, Kind: hotcfg.Call, Target: 0x9000},
	0x9000: {Addr: 0x9000, Len: 1, Kind: hotcfg.Other},
	0x9001: {Addr: 0x9001, Len: 1, Kind: hotcfg.Return},
}

type symbolizer func(uint64) hotcfg.Symbol

func (f symbolizer) Symbolize(a uint64) hotcfg.Symbol { return f(a) }

// TestGraphJSON: the document of a sampled graph holds its profile's functions with
// each observed edge's rate and standard error, its totals, and the graph by
// address, which reads back as the same graph and compares with itself fully; the
// comparison given is in it.
func TestGraphJSON(t *testing.T) {
	b := hotcfg.NewBursts(loopCode)
	b.AddBatch(hotcfg.Batch{PCs: []uint64{0x1000, 0x1002, 0x1004, 0x1000, 0x1002, 0x1004, 0x1000, 0x1002, 0x1004, 0x1006, 0x9000, 0x9001}})
	g := b.Graph()
	g.Instructions = 1200
	g.Maps = hotcfg.Maps{{Start: 0x1000, End: 0xa000, Path: "/bin/prog"}}
	g.Symbolize(symbolizer(func(a uint64) hotcfg.Symbol {
		if a >= 0x9000 {
			return hotcfg.Symbol{Func: "f", Entry: 0x9000}
		}
		return hotcfg.Symbol{Func: "main", Entry: 0x1000}
	}))
	cmp := hotcfg.Compare(g, g, 1)
	var buf bytes.Buffer
	if err := GraphJSON(g, 2, nil, &cmp).Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc JSONProgram
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Runs != 2 || doc.Instructions != 1200 || doc.Sampled != g.Sampled || doc.Sampled != 12 {
		t.Errorf("totals: runs %d, instructions %d, sampled %d (graph %d)", doc.Runs, doc.Instructions, doc.Sampled, g.Sampled)
	}
	if len(doc.Functions) != 2 || doc.Functions[0].Name != "main" || doc.Functions[1].Name != "f" {
		t.Fatalf("functions %+v", doc.Functions)
	}
	// main: entry, the loop, the call block; the back edge observed twice.
	var back *JSONEdge
	for i, e := range doc.Functions[0].Edges {
		if e.Kind == "true" {
			back = &doc.Functions[0].Edges[i]
		}
	}
	want := g.Edges[0]
	if back == nil || back.Count == nil || *back.Count != 2 || back.Rate == nil || *back.Rate != want.Rate || *back.StdErr != want.StdErr || want.Rate <= 0 {
		t.Errorf("back edge %+v, want count 2, rate %v ± %v", back, want.Rate, want.StdErr)
	}
	if doc.Compare == nil || doc.Compare.Similarity != 1 || doc.Compare.Edges != len(g.Edges) {
		t.Errorf("compare %+v", doc.Compare)
	}
	h := doc.Graph
	if h == nil || h.String() != g.String() || h.Sampled != g.Sampled || h.Instructions != 1200 || len(h.Maps) != 1 || h.Maps[0] != g.Maps[0] {
		t.Fatalf("graph read back:\n%v\nwant:\n%s", h, g)
	}
	if c := hotcfg.Compare(h, g, 1); c.Similarity != 1 || c.Precision != 1 {
		t.Errorf("read-back graph against the original: %+v", c)
	}
}
