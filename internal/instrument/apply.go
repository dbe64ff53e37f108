// This file applies plans to an IR module as text edits and registers the unit with
// the runtime.

package instrument

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// Options control how counters are written.
type Options struct {
	Scheme Scheme
	// Atomic makes every increment an atomicrmw (for threaded programs); otherwise a
	// plain load/add/store, like gcov's -fprofile-update=single.
	Atomic bool
	// Volatile makes every increment a volatile load and store: the compiler may no
	// longer keep a counter in a register across a loop (storing it only when the
	// loop ends) or drop the counters of a loop that never ends, so the counts in
	// memory are exact at every moment, for runs stopped from outside (Ctrl-C,
	// --timeout, SIGKILL in continuous mode). Slower in tight loops.
	Volatile bool
	// Source names the translation unit in reports (the file as given to clang).
	Source string
	// NoCounters plans the counters (the metadata stays whole) but increments
	// none: fragprof trace's build, whose program is the plain one plus its
	// checkpoints, so that the time it predicts is the plain program's.
	NoCounters bool
	// Promote lets the optimiser keep counters in registers: the counters of loops
	// live in locals, added to their slots when control leaves the loop, and
	// counter accesses carry an alias tag of their own (promote.go). Worth it only
	// when the IR is optimised. It gives up exact counts for runs that stop by a
	// fault or an outside signal: the optimiser may then hold an increment past the
	// faulting instruction.
	Promote bool
	// Simplified records that the IR was simplified by LLVM's early function passes
	// before it was instrumented (build.Simplify): the counts are those of the
	// blocks the simplification left, not of the source-level CFG. The build does
	// the simplifying; the unit only says so (Unit.Simplified).
	Simplified bool
	// Exported names functions that later edits make visible to code outside the
	// unit (a harness calling a static function): they count their activations at
	// their own entry, never at their call sites (llvmir.Module.EntriesFromCalls).
	Exported []string
	// Walk says that the back end compiles the unit at -O0, which keeps its blocks
	// in order and (ForceFramePointers) its frame pointers: without promotion and
	// under chords, the runtime can then find where a fault stopped each activation
	// by walking the stack (walk.go), and the blocks that may fault need no virtual
	// edge (Plan). Ignored where the module does not allow it
	// (llvmir.Module.WalkableStack).
	Walk bool
}

// CountedAtCalls returns the functions of m whose activations a build under opt
// counts at their call sites (FuncPlan.EntryFromCalls): those of
// llvmir.Module.EntriesFromCalls, under chords, but the exported ones, and none when
// the counts in memory must hold at every moment (volatile counters, atomic ones not
// promoted: a run stopped between a block's entry and its call would count a call
// not made). Without promotion a call
// site must not follow an instruction that may fault: such builds count runs that
// fault exactly.
func CountedAtCalls(m *llvmir.Module, opt Options) map[string]bool {
	if opt.Scheme != Chords || opt.Volatile || opt.Atomic && !opt.Promote {
		return nil // counts in memory exact at every moment (Unit.InMemory)
	}
	fromCalls := m.EntriesFromCalls(!opt.Promote)
	for _, name := range opt.Exported {
		delete(fromCalls, name)
	}
	return fromCalls
}

// A Unit is an instrumented translation unit: its plans, in counter-slot order.
type Unit struct {
	Source string
	Scheme Scheme
	// InMemory reports volatile increments, or atomic ones not promoted out of
	// loops (Options): the counts in memory
	// are exact at every moment, not only when the program ends through the runtime.
	InMemory bool
	Funcs    []*FuncPlan
	// Promoted reports that some counters are kept in locals inside loops
	// (promote.go): a run that stops inside such a loop without a call (a fault, a
	// signal from outside) loses their iterations since the loop was entered.
	Promoted bool
	// Simplified: the CFG counted is the one LLVM's early simplification left
	// (Options.Simplified).
	Simplified bool

	callsOnce sync.Once
	calls     [][]CallSite // Calls, by function
}

// A CallSite is a block that calls a function: N calls each time it runs.
type CallSite struct {
	Func, Block, N int // Func indexes Unit.Funcs
}

// Calls returns the call sites of the function Funcs[i] in the unit, for a plan
// whose entry is counted at them (FuncPlan.EntryFromCalls; nil otherwise): its
// activations are the sum over the sites of N times the block's count. Computed
// once; safe for concurrent use.
func (u *Unit) Calls(i int) []CallSite {
	u.callsOnce.Do(func() {
		idx := map[string]int{}
		for j, p := range u.Funcs {
			if p.EntryFromCalls {
				idx[p.Func.Name] = j
			}
		}
		if len(idx) == 0 {
			return
		}
		u.calls = make([][]CallSite, len(u.Funcs))
		for j, p := range u.Funcs {
			for _, b := range p.Func.Blocks {
				for k, name := range b.Calls {
					t, ok := idx[name]
					if !ok || slices.Contains(b.Calls[:k], name) {
						continue // not counted at its calls, or this block already listed
					}
					n := 0
					for _, c := range b.Calls[k:] {
						if c == name {
							n++
						}
					}
					u.calls[t] = append(u.calls[t], CallSite{Func: j, Block: b.ID, N: n})
				}
			}
		}
	})
	if u.calls == nil {
		return nil
	}
	return u.calls[i]
}

// NumCounters returns the number of counter slots of the unit.
func (u *Unit) NumCounters() int {
	n := 0
	for _, f := range u.Funcs {
		n += len(f.Counters)
	}
	return n
}

// Module instruments every function definition of m: it plans counters, schedules
// the edits that increment them, and adds the counter array, the metadata blob and a
// constructor that registers both with the runtime. It refuses a module that is
// already instrumented.
func Module(m *llvmir.Module, opt Options) (*Unit, error) {
	return ModuleContext(context.Background(), m, opt)
}

// ModuleContext is Module that checks ctx between functions and returns its error
// once it has ended: a file of 20,000 functions takes minutes to instrument, which a
// Ctrl-C must not wait for.
func ModuleContext(ctx context.Context, m *llvmir.Module, opt Options) (*Unit, error) {
	for _, l := range m.Lines {
		if strings.Contains(l, "@__fragprof_register") {
			return nil, fmt.Errorf("%s: module is already instrumented by fragprof", opt.Source)
		}
	}
	if opt.Volatile {
		opt.Promote = false // volatile counters are in memory at every moment
	}
	u := &Unit{Source: opt.Source, Scheme: opt.Scheme, InMemory: opt.Volatile || opt.Atomic && !opt.Promote, Simplified: opt.Simplified}
	if opt.Source != "" {
		m.SetSource(opt.Source)
	}
	var irFuncs []*llvmir.Func
	walk := Walks(m, opt)
	if walk {
		m.ForceFramePointers()
	}
	fromCalls := CountedAtCalls(m, opt)
	for name := range fromCalls {
		m.Internalize(name) // a C++ inline function's callers are then all in this unit
	}
	for _, f := range m.Funcs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if strings.Contains(m.Lines[f.Line], " available_externally ") {
			continue // its code is discarded after optimisation; the counts would be wrong
		}
		g := m.CFG(f)
		if err := g.Check(); err != nil {
			return nil, err
		}
		p := Plan(g, opt, fromCalls[f.Name], walk)
		p.Shared = isShared(m.Lines[f.Line])
		u.Funcs = append(u.Funcs, p)
		irFuncs = append(irFuncs, f)
	}
	n := u.NumCounters()
	w := &writer{m: m, opt: opt, n: n, cap: PaddedCounters(n)}
	bases := make([]int, len(u.Funcs))
	slot := 0
	for i, p := range u.Funcs {
		bases[i] = slot
		slot += len(p.Counters)
	}
	if opt.Promote && !opt.Atomic && !opt.NoCounters && helpersOn {
		w.helpers = leafHelpers(m, irFuncs, u.Funcs, bases)
	}
	for i, p := range u.Funcs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := w.function(irFuncs[i], p, bases[i]); err != nil {
			return nil, err
		}
	}
	renameMain(m)
	u.Promoted = w.promoted
	hookExec(m, irFuncs)
	blob, err := u.Encode()
	if err != nil {
		return nil, err
	}
	walkRef := ""
	if walk {
		walkRef = w.walkTable(irFuncs, u.Funcs, bases)
	}
	w.register(blob, walkRef)
	return u, nil
}

// Walks reports whether a build of m under opt has the runtime walk the stack of a
// faulting run (Options.Walk).
func Walks(m *llvmir.Module, opt Options) bool {
	return opt.Walk && !opt.Promote && !opt.Volatile && opt.Scheme == Chords && !opt.NoCounters && m.WalkableStack()
}

// isShared reports a definition that other translation units may define too: its
// linkage lets the linker keep one copy (linkonce, weak, their _odr forms) or it
// belongs to a COMDAT group.
func isShared(define string) bool {
	head := define
	if k := strings.IndexByte(head, '@'); k >= 0 {
		head = head[:k]
	}
	for _, w := range strings.Fields(head) {
		switch w {
		case "linkonce", "linkonce_odr", "weak", "weak_odr":
			return true
		}
	}
	return strings.Contains(define, " comdat")
}

type writer struct {
	m        *llvmir.Module
	opt      Options
	n        int                // counters in the unit
	cap      int                // length of the counter array: n padded to whole pages
	tmp      int                // per-function temporary counter
	tbaaTag  int                // metadata number of the counters' TBAA tag, once defined
	untagged bool               // the function being written has a call that may not return: no TBAA tag (tbaa)
	promoted bool               // some counter is promoted
	helpers  map[string]*helper // leaf helpers by name (helpers.go)
	walkType string             // the type of the walk table, once written (walk.go)
}

// CounterPage is the alignment and size granule of a unit's counter array, so that
// the runtime's continuous mode can map a file over it (runtime/c/rt_continuous.c).
const CounterPage = 4096

// PaddedCounters returns the length of the counter array of a unit with n counters:
// n rounded up to a whole number of pages. The padding is zero-initialised .bss: it
// costs address space, not file size, and pages never touched are never resident.
func PaddedCounters(n int) int {
	per := CounterPage / 8
	return (n + per - 1) / per * per
}

// ptr returns the pointer type of an i64 or the generic pointer type.
func (w *writer) ptrTo(elem string) string {
	if w.m.Opaque {
		return "ptr"
	}
	return elem + "*"
}

// slotAddr is a constant expression for the address of counter k.
func (w *writer) slotAddr(k int) string {
	arr := fmt.Sprintf("[%d x i64]", w.cap)
	return fmt.Sprintf("getelementptr inbounds (%s, %s @__fragprof.ctr, i64 0, i64 %d)", arr, w.ptrTo(arr), k)
}

// increment returns the instructions that add one to counter k.
func (w *writer) increment(k int) string {
	addr := w.slotAddr(k)
	p := w.ptrTo("i64")
	w.tmp++
	t := w.tmp
	if w.opt.Atomic {
		return fmt.Sprintf("  %%__fp.%d = atomicrmw add %s %s, i64 1 monotonic", t, p, addr)
	}
	vol, tbaa := "", ""
	if w.opt.Volatile {
		vol = "volatile "
	}
	if w.opt.Promote {
		tbaa = w.tbaa()
	}
	return fmt.Sprintf("  %%__fp.%d = load %si64, %s %s, align 8%s\n  %%__fp.%d.1 = add i64 %%__fp.%d, 1\n  store %si64 %%__fp.%d.1, %s %s, align 8%s",
		t, vol, p, addr, tbaa, t, t, vol, t, p, addr, tbaa)
}

// tbaa returns the type-based alias tag of counter accesses (", !tbaa !N"), defining
// it on first use: a scalar type of its own under C's "omnipotent char", so that the
// optimiser knows that no store through an int, long, double or struct pointer of
// the program changes a counter and can keep counters in registers across them
// (LICM's promotion; clang's TBAA nodes with the same content are the same nodes).
//
// A function with a call that may not return (cfg.MayNotReturn: any call of code
// outside the unit) gets no tag: wherever its code lands after inlining, that call
// is in the same loop and may change the counters (their array's address is handed
// to the runtime), so LICM cannot keep them in registers with or without the tag,
// while the tag would make every counter load's memory-dependence walk (GVN,
// MemorySSA) go on past every store of the program — two fifths of what the counters
// cost clang's optimiser on sqlite3.c.
func (w *writer) tbaa() string {
	if w.untagged {
		return ""
	}
	if w.tbaaTag == 0 {
		root, char, typ, tag := w.m.NewMeta(), w.m.NewMeta(), w.m.NewMeta(), w.m.NewMeta()
		w.m.Append(fmt.Sprintf("!%d = !{!\"Simple C/C++ TBAA\"}\n!%d = !{!\"omnipotent char\", !%d, i64 0}\n!%d = !{!\"fragprof counter\", !%d, i64 0}\n!%d = !{!%d, !%d, i64 0}",
			root, char, root, typ, char, tag, typ, typ))
		w.tbaaTag = tag
	}
	return fmt.Sprintf(", !tbaa !%d", w.tbaaTag)
}

// function schedules the edits for one function whose first counter is slot base.
func (w *writer) function(f *llvmir.Func, p *FuncPlan, base int) error {
	w.tmp = 0
	g := p.Func
	w.untagged = false
	for _, b := range g.Blocks {
		if b.Traits&cfg.MayNotReturn != 0 {
			w.untagged = true
		}
	}
	pr := &promotion{local: make([]bool, len(p.Counters))}
	if w.opt.Promote && !w.opt.NoCounters {
		pr = planPromotion(p)
	}
	arrays, err := w.passHelperCounters(f, pr)
	if err != nil {
		return err
	}
	w.promoted = w.promoted || len(pr.nests) > 0
	h := w.helpers[f.Name]
	if h != nil {
		line, err := appendArg(w.m.Text(f.Line), f.Name, w.ptrTo(h.typ())+" noalias nocapture %__fp.hc")
		if err != nil {
			return w.unsupported(f, f.Blocks[0], err.Error())
		}
		w.m.Replace(f.Line, line)
	}
	// The locals of promoted counters, zero at the function's entry.
	var locals strings.Builder
	for i, on := range pr.local {
		if on {
			fmt.Fprintf(&locals, "  %%__fp.l%d = alloca i64, align 8\n  store i64 0, %s %%__fp.l%d, align 8\n", i, w.ptrTo("i64"), i)
		}
	}
	for _, hl := range arrays {
		st := hl.h.typ()
		fmt.Fprintf(&locals, "  %s = alloca %s, align 8\n  store %s zeroinitializer, %s %s, align 8\n", hl.name, st, st, w.ptrTo(st), hl.name)
	}
	if locals.Len() > 0 {
		w.m.InsertBefore(f.Blocks[0].Instrs[0].Line, strings.TrimSuffix(locals.String(), "\n"))
	}
	inc := func(i int) string {
		switch {
		case pr.local[i]:
			return w.localIncrement(i)
		case h != nil:
			return w.helperIncrement(h, i)
		}
		return w.increment(base + i)
	}
	// Retargets per terminator: target index → new label.
	retarget := map[*llvmir.Instr]map[int]string{}
	setTarget := func(e *cfg.Edge, label string) {
		t := f.Blocks[e.From.ID].Term()
		if retarget[t] == nil {
			retarget[t] = map[int]string{}
		}
		retarget[t][succIndex(e)] = label
	}
	// Counted unwind edges into landing pads that other edges enter too: landing pad
	// block → edge → slot.
	lpadSplits := map[int]map[int]int{}
	// Code for new blocks that split edges, by edge, in the order first scheduled.
	splits := map[int][]string{}
	var splitOrder []int
	onEdge := func(e *cfg.Edge, code string) {
		if _, ok := splits[e.ID]; !ok {
			splitOrder = append(splitOrder, e.ID)
		}
		splits[e.ID] = append(splits[e.ID], code)
	}
	counters := p.Counters
	if w.opt.NoCounters {
		counters = nil
	}
	for i, c := range counters {
		switch c.Place {
		case AtEntry, AtSelfLoop:
			b := c.Block
			if b < 0 {
				b = g.Edges[c.Edge].To.ID
			}
			ir := f.Blocks[b]
			at, ok := ir.InsertionPoint()
			if !ok {
				return w.unsupported(f, ir, "a counter at the entry of a catchswitch block")
			}
			w.m.InsertBefore(at, inc(i))
		case BeforeTerm:
			ir := f.Blocks[g.Edges[c.Edge].From.ID]
			w.m.InsertBefore(ir.Term().Line, inc(i))
		case SplitEdge:
			e := g.Edges[c.Edge]
			from, to := f.Blocks[e.From.ID], f.Blocks[e.To.ID]
			switch to.EHPad() {
			case "":
			case "landingpad":
				// Counted in memory (never promoted: planPromotion leaves loops
				// with unwind edges alone).
				if lpadSplits[e.To.ID] == nil {
					lpadSplits[e.To.ID] = map[int]int{}
				}
				lpadSplits[e.To.ID][e.ID] = base + i
				continue
			default:
				return w.unsupported(f, to, "a counter on a critical edge into a "+to.EHPad()+" (funclet-based exception handling)")
			}
			switch t := from.Term(); {
			case t.Op == "callbr" && e.Kind == cfg.Indirect && !w.m.Opaque:
				return w.unsupported(f, from, "a counter on a critical asm goto edge (clang < 15 takes the target's address)")
			case t.Op == "indirectbr":
				return w.unsupported(f, from, "a counter on a critical edge of a computed goto (the jump goes to the target's address)")
			}
			onEdge(e, inc(i))
		}
	}
	// Flushes of promoted counters: on every edge that leaves their loop.
	for _, n := range pr.nests {
		for _, e := range n.loop.Exits {
			code := w.flush(n.counters, base)
			if hc := w.flushHelpers(n.helpers); hc != "" {
				code = strings.TrimPrefix(code+"\n"+hc, "\n")
			}
			switch {
			case len(e.From.Succs) == 1:
				w.m.InsertBefore(f.Blocks[e.From.ID].Term().Line, code)
			case len(e.To.Preds) == 1 && e.To.ID != 0:
				ir := f.Blocks[e.To.ID]
				w.m.InsertBefore(ir.Instrs[ir.FirstNonPhi()].Line, code)
			default:
				onEdge(e, code)
			}
		}
	}
	var split strings.Builder
	for _, id := range splitOrder {
		e := g.Edges[id]
		from, to := f.Blocks[e.From.ID], f.Blocks[e.To.ID]
		name := fmt.Sprintf("__fp.e%d", e.ID)
		setTarget(e, name)
		fmt.Fprintf(&split, "\n%s:\n%s\n  br label %s", name, strings.Join(splits[id], "\n"), llvmir.LabelRef(to.Name))
		// The target's phis now see the new block instead of the source.
		for _, in := range to.Instrs[:to.FirstNonPhi()] {
			w.m.Replace(in.Line, renameIncoming(w.m.Text(in.Line), from.Name, name))
		}
	}
	for _, b := range sortedKeys(lpadSplits) {
		w.splitLandingPad(f, g.Blocks[b], lpadSplits[b], setTarget, &split)
	}
	for t, r := range retarget {
		var lines []string
		for k := t.Line; k <= t.EndLine; k++ {
			lines = append(lines, w.m.Text(k))
		}
		for k, l := range llvmir.RetargetTerm(lines, r) {
			w.m.Replace(t.Line+k, l)
		}
	}
	if split.Len() > 0 {
		w.m.InsertBefore(f.EndLine, strings.TrimPrefix(split.String(), "\n"))
	}
	if f.Name == "main" {
		for _, b := range f.Blocks {
			if t := b.Term(); t.Op == "ret" {
				w.m.InsertBefore(t.Line, fmt.Sprintf("  store i32 1, %s @__fragprof_main_returned, align 4", w.ptrTo("i32")))
			}
		}
	}
	return nil
}

// localIncrement returns the instructions that add one to the local of promoted
// counter i.
func (w *writer) localIncrement(i int) string {
	p := w.ptrTo("i64")
	w.tmp++
	t := w.tmp
	return fmt.Sprintf("  %%__fp.%d = load i64, %s %%__fp.l%d, align 8\n  %%__fp.%d.1 = add i64 %%__fp.%d, 1\n  store i64 %%__fp.%d.1, %s %%__fp.l%d, align 8",
		t, p, i, t, t, t, p, i)
}

// helperSlots is the address of leaf helper h's slots, as its counters' type.
func (w *writer) helperSlots(h *helper) string {
	if w.m.Opaque {
		return w.slotAddr(h.base)
	}
	return fmt.Sprintf("bitcast (i64* %s to %s*)", w.slotAddr(h.base), h.typ())
}

// passHelperCounters gives every call of a leaf helper in f the address of the
// helper's counters: its slots, or, in a promoted loop nest, a local structure of
// the nest's (helpers.go), which it returns, to be allocated at f's entry.
func (w *writer) passHelperCounters(f *llvmir.Func, pr *promotion) ([]*helperLocals, error) {
	var arrays []*helperLocals
	for bi, b := range f.Blocks {
		for _, in := range b.Instrs {
			h := w.helpers[in.Callee]
			if in.Op != "call" || h == nil {
				continue
			}
			arg := w.helperSlots(h)
			if pr.blockNest != nil && pr.blockNest[bi] != nil {
				n := pr.nestOf(pr.blockNest[bi])
				k := slices.IndexFunc(n.helpers, func(x *helperLocals) bool { return x.h == h })
				if k < 0 {
					n.helpers = append(n.helpers, &helperLocals{h: h, name: fmt.Sprintf("%%__fp.h%d", len(arrays))})
					arrays = append(arrays, n.helpers[len(n.helpers)-1])
					k = len(n.helpers) - 1
				}
				arg = n.helpers[k].name
			}
			line, err := appendArg(w.m.Text(in.Line), in.Callee, w.ptrTo(h.typ())+" "+arg)
			if err != nil {
				return nil, w.unsupported(f, b, err.Error())
			}
			w.m.Replace(in.Line, line)
		}
	}
	return arrays, nil
}

// helperIncrement returns the instructions that add one to counter i of leaf helper
// h, field i of the structure its parameter %__fp.hc points to (helpers.go).
func (w *writer) helperIncrement(h *helper, i int) string {
	w.tmp++
	t := w.tmp
	st, p := h.typ(), w.ptrTo("i64")
	tbaa := w.tbaa()
	return fmt.Sprintf("  %%__fp.%d.a = getelementptr inbounds %s, %s %%__fp.hc, i32 0, i32 %d\n  %%__fp.%d = load i64, %s %%__fp.%d.a, align 8%s\n  %%__fp.%d.1 = add i64 %%__fp.%d, 1\n  store i64 %%__fp.%d.1, %s %%__fp.%d.a, align 8%s",
		t, st, w.ptrTo(st), i, t, p, t, tbaa, t, t, t, p, t, tbaa)
}

// flushHelpers returns the instructions that add a nest's local arrays of helper
// counters to the helpers' slots and zero them.
func (w *writer) flushHelpers(hls []*helperLocals) string {
	p := w.ptrTo("i64")
	var sb strings.Builder
	for _, hl := range hls {
		for j := 0; j < hl.h.n; j++ {
			w.tmp++
			t := w.tmp
			tbaa := w.tbaa()
			addr := w.slotAddr(hl.h.base + j)
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			st := hl.h.typ()
			fmt.Fprintf(&sb, "  %%__fp.%d.a = getelementptr inbounds %s, %s %s, i32 0, i32 %d\n  %%__fp.%d = load i64, %s %%__fp.%d.a, align 8%s\n", t, st, w.ptrTo(st), hl.name, j, t, p, t, tbaa)
			fmt.Fprintf(&sb, "  %%__fp.%d.1 = load i64, %s %s, align 8%s\n  %%__fp.%d.2 = add i64 %%__fp.%d.1, %%__fp.%d\n  store i64 %%__fp.%d.2, %s %s, align 8%s\n",
				t, p, addr, tbaa, t, t, t, t, p, addr, tbaa)
			fmt.Fprintf(&sb, "  store i64 0, %s %%__fp.%d.a, align 8%s", p, t, tbaa)
		}
	}
	return sb.String()
}

// flush returns the instructions that add the locals of the promoted counters (plan
// indices; the function's first slot is base) to their slots and zero them.
func (w *writer) flush(counters []int, base int) string {
	p := w.ptrTo("i64")
	var sb strings.Builder
	for _, i := range counters {
		w.tmp++
		t := w.tmp
		addr := w.slotAddr(base + i)
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "  %%__fp.%d = load i64, %s %%__fp.l%d, align 8\n", t, p, i)
		if w.opt.Atomic {
			fmt.Fprintf(&sb, "  %%__fp.%d.2 = atomicrmw add %s %s, i64 %%__fp.%d monotonic\n", t, p, addr, t)
		} else {
			tbaa := w.tbaa()
			fmt.Fprintf(&sb, "  %%__fp.%d.1 = load i64, %s %s, align 8%s\n  %%__fp.%d.2 = add i64 %%__fp.%d.1, %%__fp.%d\n  store i64 %%__fp.%d.2, %s %s, align 8%s\n",
				t, p, addr, tbaa, t, t, t, t, p, addr, tbaa)
		}
		fmt.Fprintf(&sb, "  store i64 0, %s %%__fp.l%d, align 8", p, i)
	}
	return sb.String()
}

// splitLandingPad counts unwind edges into a landing pad that several invokes share,
// as LLVM's SplitLandingPadPredecessors does: every in-edge gets a landing pad of its
// own (a clone of the original's landingpad instruction, with the counter of the
// edge if it has one) that branches to the original block, where a phi of the clones'
// values replaces the landingpad instruction. The unwinder then lands in the clone
// of the invoke that threw, and the original block is entered by ordinary branches.
func (w *writer) splitLandingPad(f *llvmir.Func, lb *cfg.Block, slots map[int]int, setTarget func(*cfg.Edge, string), split *strings.Builder) {
	ir := f.Blocks[lb.ID]
	lp := ir.Instrs[ir.FirstNonPhi()]
	var lines []string
	for k := lp.Line; k <= lp.EndLine; k++ {
		lines = append(lines, w.m.Text(k))
	}
	first := strings.TrimSpace(lines[0])
	body := first
	if lp.Result != "" {
		body = strings.TrimSpace(first[len(lp.Result)+len(" = "):])
	}
	typ := landingPadType(body)
	var incoming []string
	for _, e := range lb.Preds {
		name := fmt.Sprintf("__fp.lp%d", e.ID)
		val := fmt.Sprintf("%%__fp.lpv%d", e.ID)
		setTarget(e, name)
		fmt.Fprintf(split, "\n%s:\n  %s = %s", name, val, body)
		for _, l := range lines[1:] {
			fmt.Fprintf(split, "\n%s", l)
		}
		if slot, ok := slots[e.ID]; ok {
			fmt.Fprintf(split, "\n%s", w.increment(slot))
		}
		fmt.Fprintf(split, "\n  br label %s", llvmir.LabelRef(ir.Name))
		incoming = append(incoming, fmt.Sprintf("[ %s, %s ]", val, llvmir.LabelRef(name)))
		from := f.Blocks[e.From.ID]
		for _, in := range ir.Instrs[:ir.FirstNonPhi()] {
			w.m.Replace(in.Line, renameIncoming(w.m.Text(in.Line), from.Name, name))
		}
	}
	phi := ""
	if lp.Result != "" {
		phi = fmt.Sprintf("  %s = phi %s %s", lp.Result, typ, strings.Join(incoming, ", "))
	}
	w.m.Replace(lp.Line, phi)
	for k := lp.Line + 1; k <= lp.EndLine; k++ {
		w.m.Replace(k, "")
	}
}

// landingPadType reads the result type of "landingpad TYPE clauses...".
func landingPadType(body string) string {
	t := strings.TrimSpace(strings.TrimPrefix(body, "landingpad"))
	if strings.HasPrefix(t, "{") {
		depth := 0
		for i, c := range t {
			switch c {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					return t[:i+1]
				}
			}
		}
	}
	return strings.Fields(t)[0]
}

// unsupported is the error for IR whose counters cannot be placed.
func (w *writer) unsupported(f *llvmir.Func, b *llvmir.Block, what string) error {
	line := f.Line
	if b.LabelLine >= 0 {
		line = b.LabelLine
	}
	return &llvmir.Error{File: "IR of " + w.opt.Source, Line: line + 1, Func: f.Name,
		Msg: fmt.Sprintf("block %s needs %s, which fragprof cannot place", b.Name, what)}
}

func sortedKeys(m map[int]map[int]int) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// MainName is what an instrumented program's main is renamed to: the runtime's own
// main calls it, directly or from its fork server (runtime/c/rt_fork.c).
const MainName = "__fragprof_main"

// StartName is the runtime's entry point (runtime/c/rt_fork.c) that the new main
// of a module that defined main calls: it runs the program's main (MainName), or
// becomes a fork server.
const StartName = "__fragprof_start"

// execFuncs are the functions that replace the process image: the counts of the
// process so far must be written before (docs/runtime.md).
var execFuncs = map[string]bool{"execl": true, "execlp": true, "execle": true, "execv": true, "execvp": true,
	"execvpe": true, "execve": true, "execveat": true, "fexecve": true}

// hookExec surrounds every call of an exec function in the functions fs by the
// runtime's __fragprof_before_exec (which adds this process's counts to the run's
// dump) and __fragprof_after_exec (the exec failed: count afresh, as the counts so
// far are written).
func hookExec(m *llvmir.Module, fs []*llvmir.Func) {
	hooked := false
	for _, f := range fs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Op == "call" && execFuncs[in.Callee] {
					m.InsertBefore(in.Line, "  call void @__fragprof_before_exec()")
					m.InsertAfter(in.Line, "  call void @__fragprof_after_exec()")
					hooked = true
				}
			}
		}
	}
	if hooked {
		m.Append("declare void @__fragprof_before_exec()\ndeclare void @__fragprof_after_exec()")
	}
}

// MainStub returns the IR of a main (with the given linkage, "" or "weak") that calls
// the runtime's StartName, for a module whose pointers are opaque or typed.
func MainStub(opaque bool, linkage string) string {
	p := "i8**"
	if opaque {
		p = "ptr"
	}
	if linkage != "" {
		linkage += " "
	}
	return fmt.Sprintf("declare i32 @%s(i32, %s, %s)\n"+
		"define %si32 @main(i32 %%argc, %s %%argv, %s %%envp) section \".text.startup\" {\n"+
		"  %%r = tail call i32 @%s(i32 %%argc, %s %%argv, %s %%envp)\n  ret i32 %%r\n}\n",
		StartName, p, p, linkage, p, p, StartName, p, p)
}

// renameMain renames every reference to @main (its definition, calls, address) and
// adds a main that calls the runtime's StartName. A program none of whose modules
// defines main therefore has no main and fails to link with the linker's own error,
// as its plain build does. The new main goes to .text.startup, where gcc puts main,
// with the unit's constructor: fragprof's own code then never sits right after the
// program's, where a function that falls off its end (undefined behaviour: -O2 ends
// a store through a null pointer with an `unreachable`) would run it.
func renameMain(m *llvmir.Module) {
	defined := false
	for _, f := range m.Funcs {
		defined = defined || f.Name == "main"
	}
	if !defined {
		return
	}
	defer func() { m.Append("\n" + MainStub(m.Opaque, "")) }()
	for i := range m.Lines {
		l := m.Text(i)
		if !strings.Contains(l, "@main") {
			continue
		}
		var sb strings.Builder
		for {
			k := strings.Index(l, "@main")
			if k < 0 {
				sb.WriteString(l)
				break
			}
			end := k + len("@main")
			if end < len(l) && isIdent(l[end]) {
				sb.WriteString(l[:end])
			} else {
				sb.WriteString(l[:k] + "@" + MainName)
			}
			l = l[end:]
		}
		m.Replace(i, sb.String())
	}
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '$'
}

// succIndex is the position of e among its source's successors.
func succIndex(e *cfg.Edge) int {
	for i, s := range e.From.Succs {
		if s == e {
			return i
		}
	}
	panic("instrument: edge not among its source's successors")
}

// renameIncoming replaces one incoming-block reference to from by to in a phi line.
// Phi entries of duplicate edges repeat the same value, so renaming one is right.
func renameIncoming(line, from, to string) string {
	old := ", " + llvmir.LabelRef(from) + " ]"
	return strings.Replace(line, old, ", "+llvmir.LabelRef(to)+" ]", 1)
}

// register adds the counter array, the metadata blob, the unit descriptor and the
// constructor that hands it to the runtime. walk names the unit's walk table, or is
// "" (walk.go); a descriptor with one is of version 2.
func (w *writer) register(blob []byte, walk string) {
	m := w.m
	arr := fmt.Sprintf("[%d x i64]", w.cap)
	metaT := fmt.Sprintf("[%d x i8]", len(blob))
	i8p, i64p, i32p := w.ptrTo("i8"), w.ptrTo("i64"), w.ptrTo("i32")
	unitT := fmt.Sprintf("{ i32, i32, %s, %s, i64, %s }", i64p, i8p, i8p)
	version, walkField := FormatVersion, ""
	if walk != "" {
		unitT = fmt.Sprintf("{ i32, i32, %s, %s, i64, %s, %s }", i64p, i8p, i8p, i8p)
		version, walkField = 2, ", "+i8p+" "+walk
		if !m.Opaque {
			walkField = ", i8* bitcast (" + w.walkType + "* " + walk + " to i8*)"
		}
	}
	ctrRef := "@__fragprof.ctr"
	metaRef := "@__fragprof.meta"
	unitRef := "@__fragprof.unit"
	if !m.Opaque {
		ctrRef = fmt.Sprintf("getelementptr inbounds (%s, %s* @__fragprof.ctr, i64 0, i64 0)", arr, arr)
		metaRef = fmt.Sprintf("getelementptr inbounds (%s, %s* @__fragprof.meta, i64 0, i64 0)", metaT, metaT)
		unitRef = fmt.Sprintf("bitcast (%s* @__fragprof.unit to i8*)", unitT)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n; fragprof: %d counters (%s)\n", w.n, w.opt.Scheme)
	fmt.Fprintf(&sb, "@__fragprof.ctr = internal global %s zeroinitializer, align %d\n", arr, CounterPage)
	fmt.Fprintf(&sb, "@__fragprof.meta = private constant %s c\"%s\", align 1\n", metaT, llvmir.EscapeString(blob))
	fmt.Fprintf(&sb, "@__fragprof.unit = internal global %s { i32 %d, i32 %d, %s %s, %s %s, i64 %d, %s null%s }, align 8\n",
		unitT, version, w.n, i64p, ctrRef, i8p, metaRef, len(blob), i8p, walkField)
	fmt.Fprintf(&sb, "@__fragprof_main_returned = external global i32\n")
	fmt.Fprintf(&sb, "declare void @__fragprof_register(%s)\n", i8p)
	fmt.Fprintf(&sb, "define internal void @__fragprof.init() section \".text.startup\" {\n  call void @__fragprof_register(%s %s)\n  ret void\n}", i8p, unitRef)
	ctorT := fmt.Sprintf("{ i32, %s, %s }", w.ptrTo("void ()"), i8p)
	elem := fmt.Sprintf("%s { i32 100, %s @__fragprof.init, %s null }", ctorT, w.ptrTo("void ()"), i8p)
	done := false
	for i, l := range m.Lines {
		if strings.HasPrefix(l, "@llvm.global_ctors = appending global [") {
			if nl, ok := appendCtor(l, elem); ok {
				m.Replace(i, nl)
				done = true
			}
			break
		}
	}
	if !done {
		fmt.Fprintf(&sb, "\n@llvm.global_ctors = appending global [1 x %s] [%s]", ctorT, elem)
	}
	// Globals must precede the metadata section only by convention; the parser
	// accepts them anywhere at top level, so append at the end.
	m.Append(sb.String())
	_ = i32p
}

// appendCtor adds one element to an existing @llvm.global_ctors definition.
func appendCtor(line, elem string) (string, bool) {
	const pre = "@llvm.global_ctors = appending global ["
	rest := line[len(pre):]
	x := strings.Index(rest, " x ")
	if x < 0 {
		return "", false
	}
	var k int
	if _, err := fmt.Sscanf(rest[:x], "%d", &k); err != nil {
		return "", false
	}
	last := strings.LastIndex(rest, "]")
	if last < 0 {
		return "", false
	}
	return fmt.Sprintf("%s%d%s, %s]%s", pre, k+1, rest[x:last], elem, rest[last+1:]), true
}

// FormatVersion is the version of the unit descriptor and metadata blob.
const FormatVersion = 1
