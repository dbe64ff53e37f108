package sample

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"reflect"
	"testing"

	"github.com/go-delve/delve/pkg/dwarf/frame"
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

// TestFDEForMatchesWholeParse looks up, through .eh_frame_hdr's table, the
// frame description entry of the first, middle and last byte of every entry
// of libc's and true(1)'s .eh_frame, and of the byte after each, and wants what
// a linear search of the whole parsed .eh_frame finds: the same range and the
// same rules there, and the same rules again from frameRule's cache. (The whole parse is in file order, which is not address order
// in libc: a binary search of it, FDEForPC, misses entries.) EstablishFrame runs
// on every entry of libc: it looped forever on those holding DW_CFA_GNU_args_size
// before followable replaced it.
func TestFDEForMatchesWholeParse(t *testing.T) {
	libc := ""
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6"} {
		if _, err := os.Stat(p); err == nil {
			libc = p
			break
		}
	}
	tru, err := exec.LookPath("true")
	if libc == "" || err != nil {
		t.Fatalf("no libc.so.6 (%q) or true(1) (%v) to read", libc, err)
	}
	for _, path := range []string{libc, tru} {
		e, err := openELF(path)
		if err != nil {
			t.Fatal(err)
		}
		e.hdrOnce.Do(e.readFDETable)
		if e.hdr == nil {
			t.Fatalf("%s: no usable .eh_frame_hdr table", path)
		}
		whole := e.cfi()
		if len(whole) < 10 {
			t.Fatalf("%s: %d FDEs parsed whole", path, len(whole))
		}
		checked := 0
		for _, f := range whole {
			for _, pc := range []uint64{f.Begin(), f.Begin() + (f.End()-f.Begin())/2, f.End() - 1, f.End()} {
				want, werr := coverOf(whole, pc)
				got, gerr := e.fdeFor(pc)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("%s: pc %#x: indexed lookup error %v, whole parse %v", path, pc, gerr, werr)
				}
				if werr != nil {
					continue
				}
				if got.Begin() != want.Begin() || got.End() != want.End() || !bytes.Equal(got.Instructions, want.Instructions) {
					t.Fatalf("%s: pc %#x: indexed lookup [%#x, %#x), whole parse [%#x, %#x)", path, pc, got.Begin(), got.End(), want.Begin(), want.End())
				}
				gf, gerr := got.EstablishFrame(pc)
				wf, werr := want.EstablishFrame(pc)
				if (gerr == nil) != (werr == nil) || (gerr == nil && (!reflect.DeepEqual(gf.CFA, wf.CFA) || !reflect.DeepEqual(gf.Regs, wf.Regs) || gf.RetAddrReg != wf.RetAddrReg)) {
					t.Fatalf("%s: pc %#x: rules differ: indexed %+v (%v), whole %+v (%v)", path, pc, gf, gerr, wf, werr)
				}
				r := e.frameRule(pc)
				var ra frame.DWRule
				usable := false
				if werr == nil {
					var raOK bool
					ra, raOK = wf.Regs[wf.RetAddrReg]
					usable = wf.CFA.Rule == frame.RuleCFA && raOK && ra.Rule == frame.RuleOffset
				}
				if !r.fde || r.usable != usable || (usable && (r.cfaReg != wf.CFA.Reg || r.cfaOff != wf.CFA.Offset || r.raOff != ra.Offset)) {
					t.Fatalf("%s: pc %#x: cached rule %+v; established %+v", path, pc, r, wf)
				}
				if bpr, ok := wf.Regs[dwarfRBP]; usable && (ok != r.bpSet || (ok && (bpr.Rule != r.bpRule || bpr.Offset != r.bpOff))) {
					t.Fatalf("%s: pc %#x: cached rbp rule %+v; established %+v", path, pc, r, bpr)
				}
				checked++
			}
		}
		if _, err := e.fdeFor(0); err == nil {
			t.Errorf("%s: an FDE covers address 0", path)
		}
		t.Logf("%s: %d FDEs, %d addresses agree", path, len(whole), checked)
	}
}

// coverOf returns the entry of fdes that covers pc, by linear search.
func coverOf(fdes frame.FrameDescriptionEntries, pc uint64) (*frame.FrameDescriptionEntry, error) {
	for _, f := range fdes {
		if f.Cover(pc) {
			return f, nil
		}
	}
	return nil, errNoFDE
}

// TestCFAKnown walks call-frame instructions: DW_CFA_GNU_args_size becomes
// DW_CFA_nop (opcode and operand) and the rest is kept; an opcode delve's frame
// package does not execute, or an operand cut short, is refused.
func TestCFAKnown(t *testing.T) {
	// advance_loc 1; def_cfa_offset 16; offset r6 at cfa-16; GNU_args_size 300
	// (ULEB128 0xac 0x02); advance_loc1 4; def_cfa r7 8.
	b := []byte{0x41, 0x0e, 0x10, 0x86, 0x02, 0x2e, 0xac, 0x02, 0x02, 0x04, 0x0c, 0x07, 0x08}
	want := []byte{0x41, 0x0e, 0x10, 0x86, 0x02, 0, 0, 0, 0x02, 0x04, 0x0c, 0x07, 0x08}
	if !cfaKnown(b, true) || !bytes.Equal(b, want) {
		t.Errorf("cfaKnown: %x, want %x and true", b, want)
	}
	for _, c := range [][]byte{
		{0x2e, 0x08},       // GNU_args_size, not to be replaced
		{0x41, 0x2f, 1, 2}, // GNU_negative_offset_extended
		{0x0c, 0x07},       // def_cfa without its offset
		{0x0f, 0x05, 1, 2}, // def_cfa_expression of 5 bytes holding 2
		{0x01, 1, 2, 3},    // set_loc without its address
	} {
		if cfaKnown(bytes.Clone(c), false) {
			t.Errorf("cfaKnown(%x) = true", c)
		}
	}
}
