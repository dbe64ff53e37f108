// This file writes the table with which the runtime finds, on a fault, the block
// each activation of the faulting thread's stack stopped in (runtime/c/walk.c), so
// that the blocks that may fault need no virtual edge in the spanning tree (Plan).
//
// The table is an array of 32-bit words in read-only data, free of dynamic
// relocations: every address in it is a difference the assembler or the static
// linker resolves (a block's offset from its function's start; a function's start
// relative to the word that holds it), so that a run that does not fault pays
// nothing for it, not even at load time. Its layout:
//
//	nfuncs, the sentinel function's start (relative)
//	per function, in the unit's order: nblocks, its start (relative),
//	    then per block: its offset from the start (0 for the entry, -1 for a
//	    block the entry cannot reach, which the back end deletes), its info
//
// A block's info is its stop counter's slot in the unit's array plus one (0 for
// none), with the flags below in the top bits. The sentinel is an empty function
// written after all the others: the code of the unit's last function ends before it.

package instrument

import (
	"fmt"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// Flags of a block's info word in the walk table (runtime/c/walk.c reads them).
const (
	walkAbsorbs = 1 << 28 // a stop here needs no counter: a virtual edge in the tree, or block counters
	walkFaults  = 1 << 29 // an instruction of the block may fault
	walkCalls   = 1 << 30 // the block calls a function
)

// reachable marks the blocks of g that its entry reaches.
func reachable(g *cfg.Func) []bool {
	live := make([]bool, len(g.Blocks))
	stack := []*cfg.Block{g.Entry()}
	live[0] = true
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range b.Succs {
			if !live[e.To.ID] {
				live[e.To.ID] = true
				stack = append(stack, e.To)
			}
		}
	}
	return live
}

// walkTable appends the walk table of the unit's functions fs (planned as ps, their
// counters from bases) and its sentinel function, and returns the table's name.
func (w *writer) walkTable(fs []*llvmir.Func, ps []*FuncPlan, bases []int) string {
	m := w.m
	words := []string{fmt.Sprint(len(fs)), ""}
	rels := map[int]string{1: "@__fragprof.walkend"} // word index → the function it points at
	type blockAddr struct {
		word int
		fn   *llvmir.Func
		name string
	}
	var addrs []blockAddr
	ref := func(f *llvmir.Func) string {
		if f.Name == "main" {
			return "@" + MainName // renamed (renameMain)
		}
		return llvmir.GlobalRef(f.Name)
	}
	for i, f := range fs {
		p := ps[i]
		g := p.Func
		rels[len(words)+1] = ref(f)
		words = append(words, fmt.Sprint(len(g.Blocks)), "")
		slots := map[int]int{}
		for k, c := range p.Counters {
			if c.Place == AtStop {
				slots[c.Block] = bases[i] + k
			}
		}
		exits := map[int]bool{}
		for _, b := range p.Exits {
			exits[b] = true
		}
		live := reachable(g)
		for _, b := range g.Blocks {
			info := 0
			if s, ok := slots[b.ID]; ok {
				info = s + 1
			}
			if p.Scheme != Chords || exits[b.ID] {
				info |= walkAbsorbs
			}
			if b.Traits&cfg.MayFault != 0 {
				info |= walkFaults
			}
			if b.Traits&cfg.HasCall != 0 {
				info |= walkCalls
			}
			switch {
			case b.ID == 0:
				words = append(words, "0")
			case !live[b.ID]:
				// The back end deletes a block the entry cannot reach (and its
				// address with it): an offset no address is past.
				words = append(words, "-1")
			default:
				addrs = append(addrs, blockAddr{len(words), f, f.Blocks[b.ID].Name})
				words = append(words, "")
			}
			words = append(words, fmt.Sprint(info))
		}
	}
	arr := fmt.Sprintf("[%d x i32]", len(words))
	w.walkType = arr
	i8p := w.ptrTo("i8")
	slot := func(k int) string { // the address of word k, as an i64
		if m.Opaque {
			return fmt.Sprintf("i64 ptrtoint (ptr getelementptr inbounds (%s, ptr @__fragprof.walk, i64 0, i64 %d) to i64)", arr, k)
		}
		return fmt.Sprintf("i64 ptrtoint (i32* getelementptr inbounds (%s, %s* @__fragprof.walk, i64 0, i64 %d) to i64)", arr, arr, k)
	}
	fnType := map[string]string{"@__fragprof.walkend": w.ptrTo("void ()")}
	for _, f := range fs {
		fnType[ref(f)] = m.FuncPtrType(f)
	}
	fnAddr := func(fn string) string { return fmt.Sprintf("i64 ptrtoint (%s %s to i64)", fnType[fn], fn) }
	for k, fn := range rels {
		words[k] = fmt.Sprintf("trunc (i64 sub (%s, %s) to i32)", fnAddr(fn), slot(k))
	}
	for _, a := range addrs {
		fn := ref(a.fn)
		words[a.word] = fmt.Sprintf("trunc (i64 sub (i64 ptrtoint (%s blockaddress(%s, %s) to i64), %s) to i32)",
			i8p, fn, llvmir.LabelRef(a.name), fnAddr(fn))
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n@__fragprof.walk = private constant %s [", arr)
	for k, wd := range words {
		if k > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("i32 " + wd)
	}
	sb.WriteString("], align 4\n")
	// Before the first function: a blockaddress may name a numbered block only
	// before its function's definition.
	if len(fs) > 0 {
		m.InsertBefore(fs[0].Line, sb.String())
	} else {
		m.Append(sb.String())
	}
	m.Append("\ndefine internal void @__fragprof.walkend() noinline {\n  ret void\n}\n")
	return "@__fragprof.walk"
}
