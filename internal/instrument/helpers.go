// This file hands the counters of small leaf helpers to their callers' loops. A
// helper such as csmith's safe_add, or a static inline accessor, has no loop of its
// own, so promotion (promote.go) leaves its counters in memory; once the optimiser
// inlines it into a caller's loop, its increments sit on conditional paths of that
// loop, where LLVM's LICM may not move a store to a global (it would add a store to
// a path that had none), and the loop can no longer be deleted or folded to its
// closed form as in the plain build.
//
// So a leaf helper takes one more parameter, the address of its counters, and
// increments them there. A call outside a promoted loop nest passes the helper's
// own slots, and counts as before; a call inside a promoted nest passes a local
// array of the caller, zero at the function's entry and added to the helper's slots
// on every edge that leaves the nest, with the nest's own promoted counters. Once
// the helper is inlined, that array is the caller's locals: registers. This is what
// clang's IR PGO gets by instrumenting after a pre-inliner, with the counters still
// on the source's functions and blocks.
//
// Exactness is promotion's: a leaf helper calls nothing, so it returns unless it
// faults, and the nest holds no call that may not return.

package instrument

import (
	"fmt"
	"strings"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// helpersOn lets a test build without handing helpers' counters to loops.
var helpersOn = true

// maxHelperCounters bounds the counters of a leaf helper: a nest that calls it adds
// that many locals to its slots at each exit.
const maxHelperCounters = 16

// helper is a leaf helper: its plan's first slot and number of counters.
type helper struct {
	base, n int
}

// typ is the type of h's counters: a structure of n i64s, not an array, so that
// an increment's address is a field, which must be a constant. SimplifyCFG cannot
// then merge the increments of two arms into one through a variable index (as it
// does for array elements), which would keep the caller's local array in memory.
func (h *helper) typ() string {
	return "{ i64" + strings.Repeat(", i64", h.n-1) + " }"
}

// helperLocals is a nest's local array for the counters of one helper it calls.
type helperLocals struct {
	h    *helper
	name string // the local structure, "%__fp.hN"
}

// leafHelpers returns the functions of m (plans[i] is funcs[i]'s, its first slot
// bases[i]) whose counters callers may hold: defined with internal or private
// linkage, not variadic, without loops, calling nothing but intrinsics, with 1 to
// maxHelperCounters counters, and named only as the callee of direct calls (no
// address taken, no invoke, no musttail call, no call through an explicit function
// type, which the new parameter would contradict).
func leafHelpers(m *llvmir.Module, funcs []*llvmir.Func, plans []*FuncPlan, bases []int) map[string]*helper {
	hs := map[string]*helper{}
	calls := map[string]int{} // direct call sites by callee
	odd := map[string]bool{}  // called by musttail, or with an explicit function type
	for _, f := range funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Op == "call" && in.Callee != "" {
					calls[in.Callee]++
					if l := m.Lines[in.Line]; strings.Contains(l, "musttail ") || strings.Contains(l, ") @"+in.Callee+"(") {
						odd[in.Callee] = true
					}
				}
			}
		}
	}
	for i, f := range funcs {
		p := plans[i]
		if len(p.Counters) == 0 || len(p.Counters) > maxHelperCounters || !plainName(f.Name) || odd[f.Name] {
			continue
		}
		def := m.Text(f.Line) // Internalize may have made it internal
		head, _, _ := strings.Cut(def, "@")
		if !strings.Contains(head, " internal ") && !strings.Contains(head, " private ") {
			continue
		}
		open, close, ok := argList(def, f.Name)
		if !ok || strings.Contains(def[open:close], "...") {
			continue
		}
		leaf := true
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if (in.Op == "call" || in.Op == "invoke" || in.Op == "callbr") && !strings.HasPrefix(in.Callee, "llvm.") {
					leaf = false
				}
			}
		}
		if !leaf || len(p.Func.FindLoops().Loops) > 0 {
			continue
		}
		hs[f.Name] = &helper{base: bases[i], n: len(p.Counters)}
	}
	// Every mention of a helper must be its definition or a direct call.
	mentions := map[string]int{}
	for _, l := range m.Lines {
		for k := strings.IndexByte(l, '@'); k >= 0; {
			j := k + 1
			for j < len(l) && isNameChar(l[j]) {
				j++
			}
			if _, ok := hs[l[k+1:j]]; ok {
				mentions[l[k+1:j]]++
			}
			next := strings.IndexByte(l[j:], '@')
			if next < 0 {
				break
			}
			k = j + next
		}
	}
	for name := range hs {
		if mentions[name] != 1+calls[name] {
			delete(hs, name)
		}
	}
	return hs
}

// plainName reports a function name that needs no quotes in LLVM IR.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-'
}

// argList returns the positions of the parentheses around the arguments (or
// parameters) that follow @name( in line.
func argList(line, name string) (open, close int, ok bool) {
	k := strings.Index(line, "@"+name+"(")
	if k < 0 {
		return 0, 0, false
	}
	open = k + len(name) + 1
	depth := 0
	for i := open; i < len(line); i++ {
		switch line[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
			if depth == 0 {
				return open, i, line[i] == ')'
			}
		case '"':
			if j := strings.IndexByte(line[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		}
	}
	return 0, 0, false
}

// appendArg returns line with arg appended to the argument or parameter list that
// follows @name(.
func appendArg(line, name, arg string) (string, error) {
	open, close, ok := argList(line, name)
	if !ok {
		return "", fmt.Errorf("no argument list after @%s in %q", name, line)
	}
	sep := ", "
	if strings.TrimSpace(line[open+1:close]) == "" {
		sep = ""
	}
	return line[:close] + sep + arg + line[close:], nil
}
