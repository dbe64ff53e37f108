// This file unwinds the call stacks taken at the in-process sampler's bursts,
// offline, from the .eh_frame call-frame information of the mapped files (parsed by
// github.com/go-delve/delve/pkg/dwarf/frame), with the frame-pointer chain where a
// PC has none.

package sample

import (
	"bytes"
	"encoding/binary"
	"errors"
	"sort"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// DWARF register numbers of x86-64.
const (
	dwarfRBP = 6
	dwarfRSP = 7
)

// errNoFDE says that no frame description entry covers a PC.
var errNoFDE = errors.New("no FDE covers the PC")

// fdeFor returns the frame description entry of e's .eh_frame that covers the
// virtual address pc. It looks pc up in the binary-search table of .eh_frame_hdr
// (the one the C++ runtime's unwinder uses, Linux Standard Base Core 5.0, section
// 10.6.2) and parses that entry and its CIE alone: parsing the whole .eh_frame of
// libc to unwind one stack was most of `fragprof sample`'s own CPU time after its
// start on short runs (about 10 ms and 250 page faults on this project's VM). A file
// without a table in the usual encodings is parsed whole, once (cfi).
func (e *elfFile) fdeFor(pc uint64) (*frame.FrameDescriptionEntry, error) {
	e.hdrOnce.Do(e.readFDETable)
	if e.hdr == nil {
		return e.cfi().FDEForPC(pc)
	}
	t := e.hdr
	n := len(t.table) / 8
	// The last entry whose initial location is at or below pc.
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.addr(m) <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil, errNoFDE
	}
	off := uint64(int64(t.hdrAddr)+int64(int32(binary.LittleEndian.Uint32(t.table[8*(lo-1)+4:])))) - t.frameAddr
	e.fdeMu.Lock()
	defer e.fdeMu.Unlock()
	fde, ok := e.fdeAt[off]
	if !ok {
		if fde = e.parseFDE(off); fde != nil && !followable(fde) {
			fde = nil
		}
		if e.fdeAt == nil {
			e.fdeAt = map[uint64]*frame.FrameDescriptionEntry{}
		}
		e.fdeAt[off] = fde
	}
	if fde == nil || !fde.Cover(pc) {
		return nil, errNoFDE
	}
	return fde, nil
}

// A frameRule is what Unwind reads of the call-frame rules at one PC: the CFA, the
// return address's and rbp's rules.
type frameRule struct {
	fde    bool // an FDE covers the PC
	usable bool // its rules establish: the CFA is a register plus an offset, the return address is saved at an offset of it
	cfaReg uint64
	cfaOff int64
	raOff  int64
	bpSet  bool // rbp has a rule
	bpRule frame.Rule
	bpOff  int64
}

// frameRule returns the rules at pc (a virtual address of e), established once
// per PC: delve's interpreter runs the CIE's and the FDE's instructions and builds
// maps at each call, and the bursts of a run return through the same call sites
// again and again (a third of fragprof's CPU time after the program's end, on
// gzip's 572 bursts).
func (e *elfFile) frameRule(pc uint64) frameRule {
	e.rulesMu.Lock()
	r, ok := e.rules[pc]
	e.rulesMu.Unlock()
	if ok {
		return r
	}
	if fde, err := e.fdeFor(pc); err == nil {
		r.fde = true
		if fc, err := fde.EstablishFrame(pc); err == nil && fc.CFA.Rule == frame.RuleCFA {
			if ra, ok := fc.Regs[fc.RetAddrReg]; ok && ra.Rule == frame.RuleOffset {
				r.usable, r.cfaReg, r.cfaOff, r.raOff = true, fc.CFA.Reg, fc.CFA.Offset, ra.Offset
				if b, ok := fc.Regs[dwarfRBP]; ok {
					r.bpSet, r.bpRule, r.bpOff = true, b.Rule, b.Offset
				}
			}
		}
	}
	e.rulesMu.Lock()
	if e.rules == nil {
		e.rules = map[uint64]frameRule{}
	}
	e.rules[pc] = r
	e.rulesMu.Unlock()
	return r
}

// An fdeTable is the binary-search table of a file's .eh_frame_hdr.
type fdeTable struct {
	hdrAddr, frameAddr uint64 // the addresses of .eh_frame_hdr and .eh_frame
	table              []byte // pairs of int32 (initial location, FDE address), relative to hdrAddr, sorted
}

// addr is the initial location of the table's i-th entry.
func (t *fdeTable) addr(i int) uint64 {
	return uint64(int64(t.hdrAddr) + int64(int32(binary.LittleEndian.Uint32(t.table[8*i:]))))
}

// DWARF pointer encodings of .eh_frame_hdr (LSB Core 5.0, section 10.5.1).
const (
	ehPEudata4  = 0x03
	ehPEsdata4  = 0x0b
	ehPEpcrel   = 0x10
	ehPEdatarel = 0x30
)

// readFDETable reads .eh_frame_hdr's table into e.hdr; it leaves e.hdr nil when
// the file has none, or one in encodings other than those every linker writes
// (a pc-relative .eh_frame pointer, a 4-byte count, 4-byte entries relative to the
// header), or one whose .eh_frame pointer is not the .eh_frame section.
func (e *elfFile) readFDETable() {
	hs, fs := e.f.Section(".eh_frame_hdr"), e.f.Section(".eh_frame")
	if hs == nil || fs == nil {
		return
	}
	h, err := hs.Data()
	if err != nil || len(h) < 12 || h[0] != 1 || h[1] != ehPEpcrel|ehPEsdata4 || h[2] != ehPEudata4 || h[3] != ehPEdatarel|ehPEsdata4 {
		return
	}
	le := binary.LittleEndian
	if uint64(int64(hs.Addr)+4+int64(int32(le.Uint32(h[4:])))) != fs.Addr {
		return
	}
	n := uint64(le.Uint32(h[8:]))
	if 12+8*n > uint64(len(h)) {
		return
	}
	e.hdr = &fdeTable{hdrAddr: hs.Addr, frameAddr: fs.Addr, table: h[12 : 12+8*n]}
}

// parseFDE parses the entry at offset off of .eh_frame with its CIE (nil when they
// do not parse): the two are copied next to each other, the CIE pointer rewritten
// to match, and parsed as an .eh_frame placed so that the entry's pc-relative
// addresses keep their values.
func (e *elfFile) parseFDE(off uint64) *frame.FrameDescriptionEntry {
	fs := e.f.Section(".eh_frame")
	le := binary.LittleEndian
	var head [8]byte
	if _, err := fs.ReadAt(head[:], int64(off)); err != nil {
		return nil
	}
	fdeLen, ciePtr := uint64(le.Uint32(head[:])), uint64(le.Uint32(head[4:]))
	if fdeLen == 0 || fdeLen == 0xffffffff || ciePtr == 0 || ciePtr > off+4 {
		return nil // a terminator, 64-bit DWARF, or a CIE
	}
	cieOff := off + 4 - ciePtr
	if _, err := fs.ReadAt(head[:4], int64(cieOff)); err != nil {
		return nil
	}
	cieLen := uint64(le.Uint32(head[:]))
	if cieLen == 0xffffffff || cieLen > fs.Size || fdeLen > fs.Size {
		return nil
	}
	buf := make([]byte, 4+cieLen+4+fdeLen)
	if _, err := fs.ReadAt(buf[:4+cieLen], int64(cieOff)); err != nil {
		return nil
	}
	if _, err := fs.ReadAt(buf[4+cieLen:], int64(off)); err != nil {
		return nil
	}
	le.PutUint32(buf[4+cieLen+4:], uint32(4+cieLen+4))
	fdes, err := frame.Parse(buf, le, 0, 8, fs.Addr+off-(4+cieLen))
	if err != nil || len(fdes) != 1 {
		return nil
	}
	return fdes[0]
}

// cfi returns the frame description entries of e's .eh_frame in address order (nil
// when it has none or it cannot be parsed).
func (e *elfFile) cfi() frame.FrameDescriptionEntries {
	e.cfiOnce.Do(func() {
		if s := e.f.Section(".eh_frame"); s != nil {
			if data, err := s.Data(); err == nil {
				if fdes, err := frame.Parse(data, binary.LittleEndian, 0, 8, s.Addr); err == nil {
					// In address order, which FDEForPC's binary search assumes:
					// Parse keeps the file's order, and libc's is not.
					sort.SliceStable(fdes, func(i, j int) bool { return fdes[i].Begin() < fdes[j].Begin() })
					for _, f := range fdes {
						if followable(f) {
							e.fdes = append(e.fdes, f)
						}
					}
				}
			}
		}
	})
	return e.fdes
}

// word returns the 8 bytes of the copied stack at addr, or false when they are not
// all inside it. addr may be anything a frame's rules computed from registers
// (garbage rbp included): the test must not overflow, as addr+8 would near 2⁶⁴.
func (st *Stack) word(addr uint64) (uint64, bool) {
	if addr < st.SP || len(st.Mem) < 8 || addr-st.SP > uint64(len(st.Mem)-8) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(st.Mem[addr-st.SP:]), true
}

// Unwind returns the return addresses of the call stack st, innermost first, at
// most max of them. It stops where a frame cannot be unwound: a PC outside every
// mapping, a rule it does not follow (a CFA not based on rsp or rbp, an expression),
// or a slot outside the copied stack.
func (fs *Files) Unwind(st *Stack, max int) []uint64 {
	if st == nil {
		return nil
	}
	mem := st.word
	pc, sp, bp := st.PC, st.SP, st.BP
	bpKnown := true
	var out []uint64
	for len(out) < max {
		m, ok := fs.Maps.Find(pc)
		if !ok {
			break
		}
		e := fs.file(m.Path)
		if e == nil {
			break
		}
		va, ok := e.vaddr(pc - m.Start + m.Offset)
		if !ok {
			break
		}
		look := va
		if len(out) > 0 {
			look-- // a return address: the call is the instruction before it
		}
		var ra uint64
		if r := e.frameRule(look); r.fde {
			if !r.usable {
				break
			}
			var base uint64
			switch {
			case r.cfaReg == dwarfRSP:
				base = sp
			case r.cfaReg == dwarfRBP && bpKnown:
				base = bp
			default:
				return out
			}
			cfa := base + uint64(r.cfaOff)
			if ra, ok = mem(cfa + uint64(r.raOff)); !ok {
				break
			}
			if r.bpSet {
				switch r.bpRule {
				case frame.RuleOffset:
					bp, bpKnown = mem(cfa + uint64(r.bpOff))
				case frame.RuleSameVal:
				default:
					bpKnown = false
				}
			}
			sp = cfa
		} else if bpKnown && bp >= sp {
			// No CFI: the frame-pointer chain.
			var ok1, ok2 bool
			ra, ok1 = mem(bp + 8)
			nbp, ok2 := mem(bp)
			if !ok1 || !ok2 {
				break
			}
			sp, bp = bp+16, nbp
		} else {
			break
		}
		if ra == 0 {
			break
		}
		out = append(out, ra)
		pc = ra
	}
	return out
}

// Call-frame instructions (DWARF 5, section 6.4.2; the GNU extensions of LSB Core
// 5.0, section 10.5.2) that delve's frame package does not execute.
const (
	cfaGNUArgsSize = 0x2e // ULEB128 size
)

// followable reports whether delve's frame package can execute fde's and its CIE's
// instructions, after replacing in fde's those that do not change the rules
// Unwind reads (DW_CFA_GNU_args_size, the size of the outgoing arguments, which
// libc's FDEs hold) by DW_CFA_nop. An instruction it does not know would make
// EstablishFrame loop forever (its error stops the execution, not the loop),
// as DW_CFA_GNU_args_size did in libc's frames. Unknown instructions make the FDE
// unfollowable: Unwind then stops at that frame, or follows the frame pointers.
func followable(fde *frame.FrameDescriptionEntry) bool {
	if fde.CIE == nil || !cfaKnown(fde.CIE.InitialInstructions, false) {
		return false
	}
	ins := bytes.Clone(fde.Instructions)
	if !cfaKnown(ins, true) {
		return false
	}
	fde.Instructions = ins
	return true
}

// cfaKnown walks the call-frame instructions b and reports whether every one is of
// a kind delve executes; with nop it overwrites each DW_CFA_GNU_args_size (opcode
// and operand) with DW_CFA_nop, and accepts it.
func cfaKnown(b []byte, nop bool) bool {
	uleb := func(i int) int { // the index after the LEB128 at i, or -1
		for ; i < len(b); i++ {
			if b[i]&0x80 == 0 {
				return i + 1
			}
		}
		return -1
	}
	for i := 0; i < len(b); {
		op := b[i]
		j := i + 1
		switch {
		case op&0xc0 == 0x40 || op&0xc0 == 0xc0: // advance_loc, restore: the operand is in the opcode
		case op&0xc0 == 0x80: // offset: ULEB128 offset
			j = uleb(j)
		default:
			switch op {
			case 0x00, 0x0a, 0x0b: // nop, remember_state, restore_state
			case 0x01: // set_loc: an 8-byte address
				j += 8
			case 0x02, 0x03, 0x04: // advance_loc1, 2, 4
				j += 1 << (op - 2)
			case 0x06, 0x07, 0x08, 0x0d, 0x0e, 0x13: // one LEB128
				j = uleb(j)
			case 0x05, 0x09, 0x0c, 0x11, 0x12, 0x14, 0x15: // two LEB128s
				if j = uleb(j); j >= 0 {
					j = uleb(j)
				}
			case 0x0f: // def_cfa_expression: ULEB128 length, block
				if k := uleb(j); k >= 0 {
					n, _ := uvarint(b[j:k])
					j = k + int(n)
				} else {
					j = -1
				}
			case 0x10, 0x16: // expression, val_expression: ULEB128 register, length, block
				if k := uleb(j); k >= 0 {
					if l := uleb(k); l >= 0 {
						n, _ := uvarint(b[k:l])
						j = l + int(n)
					} else {
						j = -1
					}
				} else {
					j = -1
				}
			case cfaGNUArgsSize:
				if !nop {
					return false
				}
				if j = uleb(j); j >= 0 {
					clear(b[i:j])
				}
			default:
				return false
			}
		}
		if j < 0 || j > len(b) {
			return false
		}
		i = j
	}
	return true
}

// uvarint decodes the unsigned LEB128 in b.
func uvarint(b []byte) (uint64, bool) {
	var v uint64
	for i, c := range b {
		if i >= 10 {
			return 0, false
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}
