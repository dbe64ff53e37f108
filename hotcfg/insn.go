// This file defines the machine instruction as the builders see it.

package hotcfg

import "fmt"

// Kind classifies an instruction by how it transfers control.
type Kind uint8

// The instruction kinds.
const (
	Other        Kind = iota // no transfer of control (syscalls included)
	CondBranch               // conditional branch: jcc, jrcxz, loop*
	Jump                     // direct unconditional jump
	IndirectJump             // jump through a register or memory
	Call                     // direct call
	IndirectCall             // call through a register or memory
	Return                   // ret
)

var kindNames = [...]string{"other", "cond", "jump", "ijump", "call", "icall", "ret"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("hotcfg: unknown instruction kind %q", s)
}

// IsBranch reports whether the kind transfers control (every kind but Other). It is
// the thesis's isBranchOrCall.
func (k Kind) IsBranch() bool { return k != Other }

// HasTarget reports whether the kind has a static target (CondBranch, Jump, Call).
func (k Kind) HasTarget() bool { return k == CondBranch || k == Jump || k == Call }

// An Insn is one decoded machine instruction.
type Insn struct {
	Addr   uint64
	Len    uint8
	Kind   Kind
	Target uint64 // static target when Kind.HasTarget(); 0 otherwise
}

// Next returns the address of the instruction that follows in memory.
func (i Insn) Next() uint64 { return i.Addr + uint64(i.Len) }

// Code gives the decoded instruction at an address. The table built while reading a
// batches file is one; a decoder over an ELF file or a live process is another.
type Code interface {
	Insn(addr uint64) (Insn, bool)
}

// InsnTable is a Code backed by a map of the instructions seen so far.
type InsnTable map[uint64]Insn

// Insn returns the instruction at addr, if known.
func (t InsnTable) Insn(addr uint64) (Insn, bool) {
	i, ok := t[addr]
	return i, ok
}

// Chain is a Code that asks each of its members in turn.
type Chain []Code

// Insn returns the first member's answer.
func (c Chain) Insn(addr uint64) (Insn, bool) {
	for _, m := range c {
		if m == nil {
			continue
		}
		if i, ok := m.Insn(addr); ok {
			return i, true
		}
	}
	return Insn{}, false
}
