// This file implements instruction decoding and the per-process decode cache.

package sample

import (
	"os"

	"golang.org/x/arch/x86/x86asm"

	"github.com/fragprof/fragprof/hotcfg"
)

// insn is a decoded instruction with what the stepper needs beyond hotcfg.Insn.
type insn struct {
	hotcfg.Insn
	// trap marks instructions that enter the kernel or fault on purpose (syscall,
	// int, ud2, hlt...): the stepper steps them one at a time.
	trap bool
	// unsure marks VEX/EVEX-encoded instructions, whose length x86asm does not always
	// get right: they are single-stepped (trap is set too) and their length is learned
	// from where the step lands. A breakpoint is never planted past one.
	unsure bool
}

// vexEncoded reports whether the instruction in src, after its legacy prefixes,
// starts with a VEX (C4, C5) or EVEX (62) prefix, all three unambiguous in 64-bit mode.
func vexEncoded(src []byte) bool {
	for _, b := range src {
		switch b {
		case 0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x3e, 0x26, 0x64, 0x65, 0x36, 0xf0:
			continue
		case 0x62, 0xc4, 0xc5:
			return true
		}
		return false
	}
	return false
}

// decode decodes the instruction at addr from its bytes.
func decode(src []byte, addr uint64) (insn, bool) {
	if vexEncoded(src) {
		return insn{Insn: hotcfg.Insn{Addr: addr, Len: 1}, trap: true, unsure: true}, true
	}
	if len(src) >= 4 && src[0] == 0xf3 && src[1] == 0x0f && src[2] == 0x1e && (src[3] == 0xfa || src[3] == 0xfb) {
		// endbr64/endbr32, which x86asm reads as a lone REP prefix of length 1.
		return insn{Insn: hotcfg.Insn{Addr: addr, Len: 4}}, true
	}
	inst, err := x86asm.Decode(src, 64)
	if err != nil || inst.Len == 0 {
		return insn{}, false
	}
	if inst.Op == 0 {
		// Prefixes x86asm could not attach to an opcode it knows: its length is
		// not to be trusted; learned from a step, like VEX.
		return insn{Insn: hotcfg.Insn{Addr: addr, Len: 1}, trap: true, unsure: true}, true
	}
	in := insn{Insn: hotcfg.Insn{Addr: addr, Len: uint8(inst.Len)}}
	rel := func() (uint64, bool) {
		if r, ok := inst.Args[0].(x86asm.Rel); ok {
			return addr + uint64(inst.Len) + uint64(int64(r)), true
		}
		return 0, false
	}
	switch inst.Op {
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JNE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS,
		x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ, x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		in.Kind = hotcfg.CondBranch
		in.Target, _ = rel()
	case x86asm.JMP:
		if t, ok := rel(); ok {
			in.Kind, in.Target = hotcfg.Jump, t
		} else {
			in.Kind = hotcfg.IndirectJump
		}
	case x86asm.LJMP:
		in.Kind = hotcfg.IndirectJump
	case x86asm.CALL:
		if t, ok := rel(); ok {
			in.Kind, in.Target = hotcfg.Call, t
		} else {
			in.Kind = hotcfg.IndirectCall
		}
	case x86asm.LCALL:
		in.Kind = hotcfg.IndirectCall
	case x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ:
		in.Kind = hotcfg.Return
	case x86asm.SYSCALL, x86asm.SYSENTER, x86asm.INT, x86asm.INTO, x86asm.UD2, x86asm.UD1, x86asm.HLT,
		x86asm.XBEGIN, x86asm.XABORT, x86asm.SYSRET, x86asm.SYSEXIT:
		in.trap = true
	}
	if inst.Op == x86asm.INT && inst.Len == 1 { // int3
		in.trap = true
	}
	return in, true
}

// codeCache decodes instructions of one address space on demand from /proc/pid/mem
// and keeps them; it is a hotcfg.Code. Code is assumed not to change while traced
// (no JIT); the cache is reset on exec. Code bytes are read a page at a time (one
// pread per page instead of one per instruction: a burst in fresh code decodes about
// 25 instructions, which cost 50 µs read one by one).
type codeCache struct {
	mem   *os.File
	insns map[uint64]insn
	pages map[uint64]*codePage
	buf   [16]byte
	// miss is called with each address decoded for the first time (the tracer uses
	// it to re-read the mappings when code appears outside the known ones).
	miss func(addr uint64)
	// planted returns the breakpoints in place (address → original byte), so that a
	// page read while one is planted keeps the original bytes.
	planted func() map[uint64]byte
}

// A codePage holds the bytes of one page of code; n is how many could be read.
type codePage struct {
	b [pageSize]byte
	n int
}

const pageSize = 4096

func newCodeCache(pid int) (*codeCache, error) {
	f, err := os.OpenFile(procPath(pid, "mem"), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return &codeCache{mem: f, insns: map[uint64]insn{}, pages: map[uint64]*codePage{}}, nil
}

func (c *codeCache) close() {
	if c != nil && c.mem != nil {
		c.mem.Close()
	}
}

// page returns the page that holds addr, read once.
func (c *codeCache) page(addr uint64) *codePage {
	base := addr &^ (pageSize - 1)
	if pg, ok := c.pages[base]; ok {
		return pg
	}
	pg := &codePage{}
	pg.n, _ = c.mem.ReadAt(pg.b[:], int64(base))
	if c.planted != nil {
		for a, orig := range c.planted() {
			if a >= base && a < base+uint64(pg.n) {
				pg.b[a-base] = orig
			}
		}
	}
	c.pages[base] = pg
	return pg
}

// read fills dst with the code bytes from addr and returns how many it could read.
func (c *codeCache) read(dst []byte, addr uint64) int {
	n := 0
	for n < len(dst) {
		a := addr + uint64(n)
		pg := c.page(a)
		off := int(a & (pageSize - 1))
		if off >= pg.n {
			break
		}
		n += copy(dst[n:], pg.b[off:pg.n])
	}
	return n
}

// byteAt returns the original code byte at addr (breakpoints excluded).
func (c *codeCache) byteAt(addr uint64) (byte, bool) {
	var b [1]byte
	if c.read(b[:], addr) != 1 {
		return 0, false
	}
	return b[0], true
}

// get decodes (once) the instruction at addr.
func (c *codeCache) get(addr uint64) (insn, bool) {
	if in, ok := c.insns[addr]; ok {
		return in, in.Len > 0
	}
	if c.miss != nil {
		c.miss(addr)
	}
	n := c.read(c.buf[:], addr)
	in, ok := decode(c.buf[:n], addr)
	if !ok {
		c.insns[addr] = insn{}
		return insn{}, false
	}
	c.insns[addr] = in
	return in, true
}

// Insn implements hotcfg.Code. Instructions whose length is not known yet are not
// described.
func (c *codeCache) Insn(addr uint64) (hotcfg.Insn, bool) {
	in, ok := c.get(addr)
	return in.Insn, ok && !in.unsure
}

// learn records the length of an unsure instruction from a single step that went
// from its address to next.
func (c *codeCache) learn(in insn, next uint64) {
	if in.unsure && next > in.Addr && next-in.Addr <= 15 {
		c.insns[in.Addr] = insn{Insn: hotcfg.Insn{Addr: in.Addr, Len: uint8(next - in.Addr), Kind: hotcfg.Other}}
	}
}
