// This file unwinds the call stacks taken at the in-process sampler's bursts,
// offline, from the .eh_frame call-frame information of the mapped files (parsed by
// github.com/go-delve/delve/pkg/dwarf/frame), with the frame-pointer chain where a
// PC has none.

package sample

import (
	"encoding/binary"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// DWARF register numbers of x86-64.
const (
	dwarfRBP = 6
	dwarfRSP = 7
)

// cfi returns the frame description entries of e's .eh_frame (nil when it has none
// or it cannot be parsed).
func (e *elfFile) cfi() frame.FrameDescriptionEntries {
	e.cfiOnce.Do(func() {
		if s := e.f.Section(".eh_frame"); s != nil {
			if data, err := s.Data(); err == nil {
				if fdes, err := frame.Parse(data, binary.LittleEndian, 0, 8, s.Addr); err == nil {
					e.fdes = fdes
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
		if fde, err := e.cfi().FDEForPC(look); err == nil {
			fc, err := fde.EstablishFrame(look)
			if err != nil || fc.CFA.Rule != frame.RuleCFA {
				break
			}
			var base uint64
			switch {
			case fc.CFA.Reg == dwarfRSP:
				base = sp
			case fc.CFA.Reg == dwarfRBP && bpKnown:
				base = bp
			default:
				return out
			}
			cfa := base + uint64(fc.CFA.Offset)
			r, ok := fc.Regs[fc.RetAddrReg]
			if !ok || r.Rule != frame.RuleOffset {
				break
			}
			if ra, ok = mem(cfa + uint64(r.Offset)); !ok {
				break
			}
			if r, ok := fc.Regs[dwarfRBP]; ok {
				switch r.Rule {
				case frame.RuleOffset:
					bp, bpKnown = mem(cfa + uint64(r.Offset))
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
