package dump

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// sparseCase builds a dump of two units (one whose metadata is by reference, one of
// 3 bytes of metadata) with the given counters and a fault record, and its sparse
// form with the given runs per unit.
func sparseCase(ctrs [2][]uint64, runs [2][][2]int) (dense, sparse []byte) {
	le := binary.LittleEndian
	head := make([]byte, 32)
	copy(head, Magic)
	le.PutUint32(head[8:], 1)
	le.PutUint32(head[12:], 2)
	le.PutUint32(head[24:], 77)
	le.PutUint32(head[28:], flagFinished|flagFault)
	dense = append(dense, head...)
	sparse = append(sparse, head...)
	metas := [2][]byte{{1, 2, 3, 4, 5, 6, 7, 8}, {9, 9, 9, 0, 0, 0, 0, 0}}
	mls := [2]uint32{refML, 3}
	for u := range 2 {
		var uh [8]byte
		le.PutUint32(uh[:], uint32(len(ctrs[u])))
		le.PutUint32(uh[4:], mls[u])
		dense = append(append(dense, uh[:]...), metas[u]...)
		sparse = append(append(sparse, uh[:]...), metas[u]...)
		for _, v := range ctrs[u] {
			dense = le.AppendUint64(dense, v)
		}
		sparse = le.AppendUint32(sparse, uint32(len(runs[u])))
		for _, r := range runs[u] {
			sparse = le.AppendUint32(le.AppendUint32(sparse, uint32(r[0])), uint32(r[1]))
			for _, v := range ctrs[u][r[0] : r[0]+r[1]] {
				sparse = le.AppendUint64(sparse, v)
			}
		}
	}
	fault := bytes.Repeat([]byte{0xAB}, faultSize)
	return append(dense, fault...), append(sparse, fault...)
}

// TestExpand: a sparse dump expands to the dump it stands for, into a buffer that
// held another dump's counters (they are cleared), and the result parses.
func TestExpand(t *testing.T) {
	ctrs := [2][]uint64{{0, 5, 6, 0, 0, 7}, {0, 0, 0, 1}}
	dense, sparse := sparseCase(ctrs, [2][][2]int{{{1, 2}, {5, 1}}, {{3, 1}}})
	dirty := bytes.Repeat([]byte{0xFF}, len(dense)+100)
	got, err := Expand(dirty, sparse, len(dense))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, dense) {
		t.Fatalf("expanded\n%x\nwant\n%x", got, dense)
	}
	// No counter set at all: every unit has zero runs.
	zero := [2][]uint64{make([]uint64, 6), make([]uint64, 4)}
	dense, sparse = sparseCase(zero, [2][][2]int{})
	if got, err := Expand(nil, sparse, len(dense)); err != nil || !bytes.Equal(got, dense) {
		t.Fatalf("all-zero dump: %v\n%x\nwant\n%x", err, got, dense)
	}
}

// TestExpandRejects: a sparse dump that lies (a run past its unit, a truncation, a
// length that is not the dump's) is an error, never a panic or a wrong dump.
func TestExpandRejects(t *testing.T) {
	ctrs := [2][]uint64{{0, 5, 6, 0, 0, 7}, {0, 0, 0, 1}}
	dense, sparse := sparseCase(ctrs, [2][][2]int{{{1, 2}, {5, 1}}, {{3, 1}}})
	if _, err := Expand(nil, sparse, len(dense)+8); err == nil {
		t.Error("a wrong dump length was accepted")
	}
	for cut := 0; cut < len(sparse); cut++ {
		if _, err := Expand(nil, sparse[:cut], len(dense)); err == nil {
			t.Fatalf("sparse dump cut at %d bytes accepted", cut)
		}
	}
	_, past := sparseCase(ctrs, [2][][2]int{{{1, 2}, {5, 1}}, {{3, 1}}})
	// unit 1's run starts at 3 with length 1: make it length 2 (past its 4 counters)
	runAt := len(past) - faultSize - 8 - 8
	binary.LittleEndian.PutUint32(past[runAt+4:], 2)
	if _, err := Expand(nil, past, len(dense)); err == nil {
		t.Error("a run past its unit's counters was accepted")
	}
}
