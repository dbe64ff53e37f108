package sample

import (
	"fmt"
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
)

// TestUntilStops: --until-similarity stops at two checks in a row at the target, with
// at least 1,000 batches and at least one batch per estimated hot edge.
func TestUntilStops(t *testing.T) {
	for _, c := range []struct {
		reached, batches, hot int
		want                  bool
	}{
		{2, 1000, 40, true},    // a small hot set: the floor of 1,000 batches
		{2, 999, 40, false},    // below it
		{1, 5000, 40, false},   // one check at the target is not two
		{2, 1199, 2842, false}, // a stop of sqlite3 at 88.1% true similarity
		{2, 2842, 2842, true},  // one batch per hot edge
		{3, 3662, 3029, true},
	} {
		if got := untilStops(c.reached, c.batches, c.hot); got != c.want {
			t.Errorf("untilStops(%d checks, %d batches, %d hot edges) = %v, want %v", c.reached, c.batches, c.hot, got, c.want)
		}
	}
}

// twoLoops is the code of two loops of three instructions, at 0x1000 and 0x2000:
// two plain instructions and a conditional branch back to the loop's start.
func twoLoops() hotcfg.InsnTable {
	code := hotcfg.InsnTable{}
	for _, at := range []uint64{0x1000, 0x2000} {
		code[at] = hotcfg.Insn{Addr: at, Len: 2, Kind: hotcfg.Other}
		code[at+2] = hotcfg.Insn{Addr: at + 2, Len: 2, Kind: hotcfg.Other}
		code[at+4] = hotcfg.Insn{Addr: at + 4, Len: 2, Kind: hotcfg.CondBranch, Target: at}
	}
	return code
}

// loopBatchAt is a burst of four trips round the loop at at.
func loopBatchAt(at uint64) hotcfg.Batch {
	var pcs []uint64
	for i := 0; i < 4; i++ {
		pcs = append(pcs, at, at+2, at+4)
	}
	return hotcfg.Batch{PCs: pcs}
}

// TestEstimateSimilarity: below MinEstimateBatches there is no estimate; batches
// that all follow one loop agree on its edge (1); halves that each sampled only one
// of two equally hot loops each hold half of the hot set (0.5).
func TestEstimateSimilarity(t *testing.T) {
	code := twoLoops()
	var bs []hotcfg.Batch
	for i := 0; i < MinEstimateBatches; i++ {
		bs = append(bs, loopBatchAt(0x1000))
	}
	if e, ok := EstimateSimilarity(bs[:MinEstimateBatches-1], code, nil, 0.9); ok || e.Batches != MinEstimateBatches-1 {
		t.Errorf("%d batches: %+v, %v; want no estimate", MinEstimateBatches-1, e, ok)
	}
	if e, ok := EstimateSimilarity(bs, code, nil, 0.9); !ok || e != (SimilarityEstimate{Similarity: 1, HotEdges: 1, Batches: MinEstimateBatches}) {
		t.Errorf("one loop: %+v, %v; want similarity 1 on 1 hot edge", e, ok)
	}
	for i := MinEstimateBatches / 2; i < MinEstimateBatches; i++ {
		bs[i] = loopBatchAt(0x2000)
	}
	if e, ok := EstimateSimilarity(bs, code, nil, 0.9); !ok || e != (SimilarityEstimate{Similarity: 0.5, HotEdges: 2, Batches: MinEstimateBatches}) {
		t.Errorf("a loop in each half: %+v, %v; want similarity 0.5 on 2 hot edges", e, ok)
	}
}

// TestUntilRule: the estimate is checked at 200 batches and then each time they
// have grown by a quarter (250, 313, 392, 490, 613, 767, 959, 1199); batches that
// agree reach the target at every check, and the runs stop at the first check at
// or past minStopBatches. Halves that disagree never stop them, and the final
// estimate is of all the batches.
func TestUntilRule(t *testing.T) {
	code := twoLoops()
	var bs []hotcfg.Batch
	u := newUntilRule(0.9)
	var checks []int
	for len(bs) < 2000 {
		bs = append(bs, loopBatchAt(0x1000))
		before := u.nextCheck
		stop := u.stop(bs, code, nil)
		if u.nextCheck != before {
			checks = append(checks, len(bs))
		}
		if stop {
			break
		}
	}
	if want := "[200 250 313 392 490 613 767 959 1199]"; fmt.Sprint(checks) != want {
		t.Errorf("checks at %v batches, want %s", checks, want)
	}
	if e, ok := u.final(bs, code, nil); !ok || e.Batches != 1199 || e.Similarity != 1 {
		t.Errorf("final estimate %+v, %v; want the last check's, of 1199 batches", e, ok)
	}
	// A check whose halves disagree (each sampled one of two loops: 0.5) starts
	// the count of checks in a row again: at 1199 batches it does not stop them,
	// the next two checks (1499, 1874) do.
	var ones, halves []hotcfg.Batch
	for i := 0; i < 2000; i++ {
		ones = append(ones, loopBatchAt(0x1000))
		halves = append(halves, loopBatchAt(0x1000+0x1000*uint64(2*i/1199)))
	}
	u = newUntilRule(0.9)
	stopped := 0
	for n := 1; n <= 2000 && stopped == 0; n++ {
		bs = ones[:n]
		if n == 1199 {
			bs = halves[:n]
		}
		if u.stop(bs, code, nil) {
			stopped = n
		}
	}
	if stopped != 1874 {
		t.Errorf("stopped at %d batches, want 1874 (after one check at 0.5: %+v)", stopped, u.est)
	}
	if newUntilRule(0).stop(bs, code, nil) {
		t.Errorf("no target: stopped")
	}
}
