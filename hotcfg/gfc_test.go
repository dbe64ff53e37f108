package hotcfg

import (
	"math"
	"testing"
)

// loopCode is a three-instruction loop: 0x1000 and 0x1002 fall through, 0x1004 is a
// conditional branch back to 0x1000 (fall-through 0x1006); 0x9000 is far away code.
var loopCode = InsnTable{
	0x1000: {Addr: 0x1000, Len: 2, Kind: Other},
	0x1002: {Addr: 0x1002, Len: 2, Kind: Other},
	0x1004: {Addr: 0x1004, Len: 2, Kind: CondBranch, Target: 0x1000},
	0x1006: {Addr: 0x1006, Len: 5, Kind: Call, Target: 0x9000},
	0x9000: {Addr: 0x9000, Len: 1, Kind: Other},
	0x9001: {Addr: 0x9001, Len: 1, Kind: Return},
}

func loopBatch(n int) Batch {
	var pcs []uint64
	for i := 0; i < n; i++ {
		pcs = append(pcs, 0x1000, 0x1002, 0x1004)
	}
	return Batch{Seq: 1, PCs: pcs}
}

func TestWindowMeans(t *testing.T) {
	// Windows of 3 over 0x1000, 0x1002, ..., 0x1008: means 0x1002, 0x1004, 0x1006;
	// their population σ is sqrt((4+0+4)/3) = 1.633.
	m := WindowMeans([]uint64{0x1000, 0x1002, 0x1004, 0x1006, 0x1008}, 3)
	want := []float64{0x1002, 0x1004, 0x1006}
	if len(m) != len(want) {
		t.Fatalf("means = %v, want %v", m, want)
	}
	for i := range m {
		if m[i] != want[i] {
			t.Errorf("mean %d = %v, want %v", i, m[i], want[i])
		}
	}
	if got := StdDev(m); math.Abs(got-math.Sqrt(8.0/3)) > 1e-12 {
		t.Errorf("σ = %v, want %v", got, math.Sqrt(8.0/3))
	}
	if WindowMeans([]uint64{1, 2}, 3) != nil {
		t.Errorf("a batch shorter than the window has no windows")
	}
}

func TestBinsAdd(t *testing.T) {
	var bs Bins
	bs.Add(100, 10) // no bins: a new one
	bs.Add(105, 10) // distance 5 ≤ 10: joins, centroid (100+105)/2
	bs.Add(105, 10) // same window mean again: count grows, centroid does not
	bs.Add(130, 10) // distance 27.5: a new bin after it
	bs.Add(115, 10) // distances 12.5 and 15: a new bin between them
	want := []struct {
		c float64
		n int
	}{{102.5, 3}, {115, 1}, {130, 1}}
	if len(bs) != len(want) {
		t.Fatalf("%d bins, want %d", len(bs), len(want))
	}
	for i, w := range want {
		if bs[i].Centroid != w.c || bs[i].Count != w.n {
			t.Errorf("bin %d = (%v, %d), want (%v, %d)", i, bs[i].Centroid, bs[i].Count, w.c, w.n)
		}
	}
	// The thesis's Figure 9: a bin of four windows with centroid 33115 takes the
	// window 33120 (distance 5 < 10) and its centroid becomes 33116.
	fig := Bins{newBin(28036), {Centroid: 33115, Count: 4, windows: map[float64]bool{33113: true, 33114: true, 33116: true, 33117: true}, sum: 4 * 33115}, newBin(33131)}
	k := fig.Add(33120, 10)
	if fig[k].Centroid != 33116 || fig[k].Count != 5 {
		t.Errorf("figure 9: bin = (%v, %d), want (33116, 5)", fig[k].Centroid, fig[k].Count)
	}
	if b := fig.ForAddress(33000, 0); b != fig[1] {
		t.Errorf("ForAddress(33000) = %v, want the bin of 33116", b)
	}
	if b := fig.ForAddress(33000, 50); b != nil {
		t.Errorf("ForAddress(33000, reach 50) = %v, want none", b)
	}
}

func TestGFCLowBatch(t *testing.T) {
	// Walk-through (hand-computed; see buildCFGR): σ of the window means is 0, so the
	// batch is local; its 10 windows all have mean 0x1002 and fill one bin (count 10
	// > λ = 5). buildCFGR meets the branch at 0x1004 first (Targets[0x1000] = 1),
	// then builds the block 0x1000..0x1004 at the second 0x1000, recurses after its
	// branch, and links the block to itself twice: once in the recursion's final
	// check of the third branch, once on return.
	g := NewGFC(Params{BinSize: 10, StdevThreshold: 15, WindowSize: 3, Recurrent: 5}, loopCode)
	g.AddBatch(loopBatch(4))
	st := g.Stats()
	if st.Low != 1 || st.Bins != 1 || g.Bins[0].Count != 10 || g.Bins[0].Centroid != 0x1002 {
		t.Fatalf("stats %+v, bin %+v", st, g.Bins[0])
	}
	if g.Targets[0x1000] != 4 {
		t.Errorf("Targets[0x1000] = %d, want 4", g.Targets[0x1000])
	}
	gr := g.Graph()
	if err := gr.Check(); err != nil {
		t.Fatal(err)
	}
	if len(gr.Blocks) != 1 || gr.Blocks[0].Start != 0x1000 || gr.Blocks[0].Last != 0x1004 || gr.Blocks[0].Insns != 3 {
		t.Fatalf("blocks:\n%s", gr)
	}
	if len(gr.Edges) != 1 || gr.Edges[0].Count != 2 || gr.Edges[0].Kind.String() != "true" {
		t.Fatalf("edges:\n%s", gr)
	}

	// A global batch (σ > σ_t), hand-traced through highStddevBatchProcess:
	//   - PC 0: the loop branch lies in the hot bin and its block exists, so does the
	//     block of the next PC: one transition (self-edge 3);
	//   - PC 3: the branch's next PC 0x1006 has no block, so buildCFGR(justBuild)
	//     runs from the batch start: its final check on PC 0 adds a transition
	//     (self-edge 4); it builds the call block 0x1006 and, recursing after the
	//     taken call (0x9000 is a known target now and, with unlimited reach, in the
	//     hot bin), the block 0x9000..0x9001, and links them (call edge 1);
	//   - PC 4: the call's block now exists and so does its successor's: call edge 2.
	g.AddBatch(Batch{PCs: []uint64{0x1004, 0x1000, 0x1002, 0x1004, 0x1006, 0x9000, 0x9001}})
	if st := g.Stats(); st.High != 1 {
		t.Fatalf("second batch not global: %+v", st)
	}
	gr = g.Graph()
	want := "0x1000..0x1004 n=3 count=4\n  -> 0x1000 true 4\n0x1006..0x1006 n=1 count=0\n  -> 0x9000 call 2\n0x9000..0x9001 n=2 count=2\n"
	if got := gr.String(); got != want {
		t.Fatalf("after the global batch:\n%s\nwant:\n%s", got, want)
	}
}

func TestGFCJustBuild(t *testing.T) {
	// In a global batch, a hot branch whose next PC has no block makes
	// buildCFGR(justBuild=true) build blocks from the batch's first PC on.
	g := NewGFC(Params{BinSize: 10, StdevThreshold: 15, WindowSize: 3, Recurrent: 5}, loopCode)
	g.AddBatch(loopBatch(4))
	g.AddBatch(Batch{PCs: []uint64{0x1000, 0x1002, 0x1004, 0x1006, 0x9000, 0x9001, 0x9000}})
	gr := g.Graph()
	if gr.Block(0x1006) == nil {
		t.Fatalf("justBuild did not build the fall-through block:\n%s", gr)
	}
}

func TestGrid(t *testing.T) {
	g := Grid()
	if len(g) != 144 {
		t.Fatalf("%d configurations", len(g))
	}
	if g[45] != DefaultParams {
		t.Errorf("#45 = %v, want %v", g[45], DefaultParams)
	}
	if w := (Params{BinSize: 8, StdevThreshold: 8, WindowSize: 6, Recurrent: 12}); g[96] != w {
		t.Errorf("#96 = %v, want %v", g[96], w)
	}
}
