// This file implements the func:NAME fragment timers: an edit that brackets the named
// functions with calls into the runtime's fragment timer (runtime/c/timing.c).

package instrument

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// Runtime entry points of the fragment timer, shared with FP_BEGIN/FP_END
// (runtime/c/fragprof.h): begin(slot, name) and end(slot, name), where slot caches the
// fragment's index and name is "func:NAME" or "region:NAME".
const (
	FragBegin = "__fragprof_frag_begin"
	FragEnd   = "__fragprof_frag_end"
)

// Timers times whole functions: its Apply method, an edit of the build pipeline
// (build.Edit), inserts a call of FragBegin at the top of each named function's entry
// block and a call of FragEnd before every ret, with the fragment name "func:NAME". The
// runtime times only the outermost activation, so recursion is safe. Inserted calls
// carry the !dbg location of a neighbouring instruction (the verifier wants one on
// every call in a function with debug info): the first located instruction of the
// entry block for the begin, the ret's own for an end, else a new location at the
// function's line. A ret that follows a musttail call gets its end before that call,
// because nothing may come between the two.
//
// Timers is applied to every translation unit of a build; Found then tells which of
// the names were defined in some unit.
type Timers struct {
	Names []string        // function names (linkage or C++ demangled names), without "func:"
	Found map[string]bool // filled by Apply: names defined in some unit
	n     int             // globals made so far, for unique names across units
}

// NewTimers returns the edit that times the named functions.
func NewTimers(names []string) *Timers {
	return &Timers{Names: append([]string(nil), names...), Found: map[string]bool{}}
}

// Missing returns the names that no unit defined, sorted.
func (t *Timers) Missing() []string {
	var out []string
	for _, n := range t.Names {
		if !t.Found[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Apply schedules the timer calls in m. Its signature is that of build.Edit.
func (t *Timers) Apply(m *llvmir.Module, u *Unit) error {
	ptr := func(elem string) string {
		if m.Opaque {
			return "ptr"
		}
		return elem + "*"
	}
	// Each name designates a function by its linkage name or, in C++, its demangled
	// name (cfg.MatchNames); the fragment keeps the name as the user gave it.
	var defined []string
	for _, f := range m.Funcs {
		if !strings.Contains(m.Lines[f.Line], " available_externally ") {
			defined = append(defined, f.Name)
		}
	}
	query := map[string]string{} // linkage name → the name that designates it
	for _, n := range t.Names {
		switch match := cfg.MatchNames(defined, n); len(match) {
		case 0:
		case 1:
			query[match[0]] = n
		default:
			return fmt.Errorf("fragment func:%s: %v", n, cfg.Ambiguous(n, match))
		}
	}
	timed := false
	for _, f := range m.Funcs {
		q, ok := query[f.Name]
		if !ok || strings.Contains(m.Lines[f.Line], " available_externally ") {
			continue
		}
		t.Found[q] = true
		timed = true
		k := t.n
		t.n++
		name := "func:" + q
		slot := fmt.Sprintf("@__fragprof.tslot.%d", k)
		str := fmt.Sprintf("@__fragprof.tname.%d", k)
		strT := fmt.Sprintf("[%d x i8]", len(name)+1)
		m.Append(fmt.Sprintf("%s = internal global i32 0, align 4", slot))
		m.Append(fmt.Sprintf("%s = private unnamed_addr constant %s c\"%s\\00\", align 1", str, strT, llvmir.EscapeString([]byte(name))))
		nameArg := str
		if !m.Opaque {
			nameArg = fmt.Sprintf("getelementptr inbounds (%s, %s* %s, i64 0, i64 0)", strT, strT, str)
		}
		// The call site's registration (struct __fragprof_site in fragprof.h), in the
		// section the runtime walks before main. It has external (hidden) linkage so
		// that the optimiser keeps it although nothing refers to it; the name hashes
		// the unit and the function, so units do not clash.
		h := fnv.New32a()
		h.Write([]byte(m.SourceFilename + "\x00" + f.Name))
		m.Append(fmt.Sprintf("@__fragprof.tsite.%08x.%d = hidden global { %s, %s } { %s %s, %s %s }, section \"fragprof_sites\", align 8",
			h.Sum32(), k, ptr("i32"), ptr("i8"), ptr("i32"), slot, ptr("i8"), nameArg))
		args := fmt.Sprintf("(%s %s, %s %s)", ptr("i32"), slot, ptr("i8"), nameArg)
		call := func(fn string, dbg int) string {
			s := fmt.Sprintf("  call void @%s%s", fn, args)
			if dbg >= 0 {
				s += fmt.Sprintf(", !dbg !%d", dbg)
			}
			return s
		}
		fallback := -1 // a location at the function's line, made when first needed
		located := func(in *llvmir.Instr) bool {
			n := m.Meta[in.Dbg]
			return in.Dbg >= 0 && n != nil && n.Kind == "DILocation"
		}
		near := func(pref *llvmir.Instr) int {
			if pref != nil && located(pref) {
				return pref.Dbg
			}
			if f.Dbg < 0 {
				return -1
			}
			if fallback < 0 {
				_, loc, _ := m.Subprogram(f.Dbg)
				fallback = m.NewMeta()
				m.Append(fmt.Sprintf("!%d = !DILocation(line: %d, scope: !%d)", fallback, loc.Line, f.Dbg))
			}
			return fallback
		}

		entry := f.Blocks[0]
		var first *llvmir.Instr
		for _, in := range entry.Instrs {
			if located(in) {
				first = in
				break
			}
		}
		m.InsertBefore(entry.Instrs[entry.FirstNonPhi()].Line, call(FragBegin, near(first)))
		for _, b := range f.Blocks {
			for j, in := range b.Instrs {
				if in.Op != "ret" {
					continue
				}
				at := in.Line
				if j > 0 && strings.Contains(m.Lines[b.Instrs[j-1].Line], "musttail call") {
					at = b.Instrs[j-1].Line
				}
				m.InsertBefore(at, call(FragEnd, near(in)))
			}
		}
	}
	if !timed {
		return nil
	}
	for _, fn := range []string{FragBegin, FragEnd} {
		if !declares(m, fn) {
			m.Append(fmt.Sprintf("declare void @%s(%s, %s)", fn, ptr("i32"), ptr("i8")))
		}
	}
	return nil
}

// declares reports whether m already declares or defines @fn (a unit that uses
// FP_BEGIN declares the timer's functions through fragprof.h).
func declares(m *llvmir.Module, fn string) bool {
	for _, l := range m.Lines {
		if (strings.HasPrefix(l, "declare ") || strings.HasPrefix(l, "define ")) && strings.Contains(l, "@"+fn+"(") {
			return true
		}
	}
	return false
}

// Uncounted prepares m for a timing build that carries no counters: it only renames
// main (the runtime's main and fork server call it, runtime/c/rt_fork.c), so that
// the timed code runs exactly as compiled, without counter increments. Timers.Apply
// may follow; the unit registers nothing with the runtime.
func Uncounted(m *llvmir.Module, source string) (*Unit, error) {
	for _, l := range m.Lines {
		if strings.Contains(l, "@__fragprof_register") {
			return nil, fmt.Errorf("%s: module is already instrumented by fragprof", source)
		}
	}
	renameMain(m)
	return &Unit{Source: source}, nil
}
