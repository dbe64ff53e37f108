package dump

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestUnwrap: a dump file gives the dump of the slot its state word names; a bare dump
// is returned as it is; a header whose slots or length do not fit the file is an
// error naming the file.
func TestUnwrap(t *testing.T) {
	le := binary.LittleEndian
	file := func(state, slotCap uint64, size int) []byte {
		b := make([]byte, size)
		copy(b, FileMagic)
		le.PutUint64(b[8:], state)
		le.PutUint64(b[16:], slotCap)
		return b
	}
	f := file(5<<1|1, 8, 64+16) // slot 1, 5 bytes
	copy(f[64:], "AAAAAAAA")
	copy(f[72:], "BBBBBxxx")
	if got, err := unwrap("f", f); err != nil || string(got) != "BBBBB" {
		t.Errorf("slot 1: %q, %v; want BBBBB", got, err)
	}
	le.PutUint64(f[8:], 8<<1)
	if got, err := unwrap("f", f); err != nil || string(got) != "AAAAAAAA" {
		t.Errorf("slot 0: %q, %v; want AAAAAAAA", got, err)
	}
	bare := append([]byte(Magic), bytes.Repeat([]byte{0}, 24)...)
	if got, err := unwrap("b", bare); err != nil || !bytes.Equal(got, bare) {
		t.Errorf("a bare dump: %v, %v", got, err)
	}
	for name, b := range map[string][]byte{
		"length past its slot": file(9<<1, 8, 64+16),
		"slots past the file":  file(1<<1, 9, 64+16),
		"truncated header":     file(0, 0, 64)[:40],
		"huge slots":           file(1<<1, 1<<62, 64+16),
	} {
		if _, err := unwrap(name, b); err == nil || !strings.Contains(err.Error(), name+": not a valid fragprof dump file") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}
