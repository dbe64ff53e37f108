package sample

import (
	"encoding/binary"
	"testing"
)

// TestStackWord reads words of a copied stack: inside it, at its edges, and at
// addresses computed from garbage registers, near 2⁶⁴ where addr+8 overflows (a
// sampled sqlite3 run panicked there, slicing the stack at a negative offset).
func TestStackWord(t *testing.T) {
	st := &Stack{SP: 0x1000, Mem: make([]byte, 32)}
	binary.LittleEndian.PutUint64(st.Mem[24:], 0xabcd)
	for _, c := range []struct {
		addr uint64
		ok   bool
		want uint64
	}{{0x1000, true, 0}, {0x1018, true, 0xabcd}, {0x1019, false, 0}, {0x1020, false, 0}, {0xfff, false, 0},
		{^uint64(0) - 6, false, 0}, {^uint64(0), false, 0}, {0, false, 0}} {
		got, ok := st.word(c.addr)
		if ok != c.ok || got != c.want {
			t.Errorf("word(%#x) = %#x, %v; want %#x, %v", c.addr, got, ok, c.want, c.ok)
		}
	}
	short := &Stack{SP: 0x1000, Mem: make([]byte, 4)}
	if _, ok := short.word(0x1000); ok {
		t.Errorf("word of a 4-byte stack copy: ok")
	}
	// A frame-pointer chain through a garbage rbp: Unwind stops, it does not panic.
	fs := NewFiles(nil)
	if ra := fs.Unwind(&Stack{PC: 0x1234, SP: 0x1000, BP: ^uint64(0) - 6, Mem: make([]byte, 64)}, 8); len(ra) != 0 {
		t.Errorf("unwinding an unmapped PC: %#x", ra)
	}
}
