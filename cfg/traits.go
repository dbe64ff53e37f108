// This file defines what a block's instructions tell the static heuristics: the
// Traits of a block and the Cond of its conditional branch.

package cfg

import "strings"

// Traits are facts about a block's instructions that the static branch heuristics
// (static.go) and the counter placement read. The IR reader fills them; a program's
// metadata carries only MayNotReturn (of blocks with successors), for the flow check
// (CheckFlow); machine blocks built by the sampler leave them zero.
type Traits uint16

// The traits.
const (
	// HasCall: the block calls a function that is not an LLVM intrinsic.
	HasCall Traits = 1 << iota
	// MayNotReturn: one of the block's calls may not come back — it leaves by exit(),
	// longjmp, a signal raised inside it, or calls something that may. Calls of
	// functions of the same module whose bodies (transitively) call nothing external
	// are known to return. Every block with MayNotReturn also has HasCall.
	MayNotReturn
	// HasStore: the block stores to memory that is not a local variable of the
	// function (an alloca), the stores the store heuristic is about.
	HasStore
	// Returns: the block ends in a return.
	Returns
	// Unreachable: the block ends in unreachable (after a call that does not return,
	// or __builtin_unreachable()).
	Unreachable
	// MayFault: an instruction of the block may raise a signal by itself: a load or
	// store through a pointer that is not the address of a variable (a local, a
	// global, or a constant offset into one), an integer division by a variable, a
	// memory intrinsic (memcpy, memset, ...), or a call of a function of the same
	// module that may (transitively): a fault there stops this activation too.
	MayFault
	// MayFaultInLibrary: the block may fault where the runtime's stack walk cannot
	// see it (runtime/c/walk.c): a memory intrinsic, which the back end may lower to
	// a call of the C library's memcpy (a frame without a frame pointer), or a call
	// of a function of the module that may. Every block with it also has MayFault.
	MayFaultInLibrary
)

var traitNames = []string{"call", "may-not-return", "store", "returns", "unreachable", "may-fault", "may-fault-in-library"}

func (t Traits) String() string {
	var parts []string
	for i, n := range traitNames {
		if t&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

// Cond classifies the comparison that decides a block's two-way conditional branch,
// as far as the Ball–Larus pointer and opcode heuristics care. The True successor is
// the one taken when the comparison holds.
type Cond uint8

// The condition classes.
const (
	CondUnknown Cond = iota // not a comparison, or one no heuristic reads
	PtrEq                   // p == q or p == NULL: predicted false (pointer heuristic)
	PtrNe                   // p != q or p != NULL: predicted true
	EqConst                 // x == constant (integer or floating point): predicted false (opcode heuristic)
	NeConst                 // x != constant: predicted true
	LtZero                  // x < 0 or x <= 0: predicted false (opcode heuristic)
	GeZero                  // x >= 0 or x > 0: predicted true
)

var condNames = [...]string{"unknown", "ptr==", "ptr!=", "==const", "!=const", "<0", ">=0"}

func (c Cond) String() string {
	if int(c) < len(condNames) {
		return condNames[c]
	}
	return "Cond(?)"
}

// Negate returns the class of the negated comparison (what !(x == 0) tests).
func (c Cond) Negate() Cond {
	switch c {
	case PtrEq:
		return PtrNe
	case PtrNe:
		return PtrEq
	case EqConst:
		return NeConst
	case NeConst:
		return EqConst
	case LtZero:
		return GeZero
	case GeZero:
		return LtZero
	}
	return c
}
