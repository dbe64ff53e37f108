// This file computes what the static heuristics and the counter placement need to
// know about a block's instructions (cfg.Traits, cfg.Cond), including which calls may
// not return, a property of the whole module.

package llvmir

import (
	"strings"

	"github.com/fragprof/fragprof/cfg"
)

// mayNotReturn reports, for every function defined in m, whether a call of it may not
// come back to its caller. A function may not return when it calls (directly or
// through other definitions of m) anything defined outside m, an indirect target or
// inline assembly: those may call exit(), longjmp(), throw an exception or raise a
// signal. The result is
// the least fixed point, so recursion among functions that call nothing external
// returns. Computed once per module.
func (m *Module) mayNotReturn() map[string]bool {
	if m.noReturn != nil {
		return m.noReturn
	}
	defined := m.definitions()
	nr := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, f := range m.Funcs {
			if nr[f.Name] {
				continue
			}
			for _, b := range f.Blocks {
				for _, in := range b.Instrs {
					if isCall(in.Op) && callMayNotReturn(in.Callee, defined, nr) {
						nr[f.Name], changed = true, true
					}
				}
			}
		}
	}
	m.noReturn = nr
	return nr
}

// mayFault reports, for every function defined in m that may fault, how: cfg.MayFault
// when an instruction of it, or of a function of m it calls (transitively), may
// fault, and also cfg.MayFaultInLibrary when that instruction is a memory intrinsic
// (the back end may lower it to a call of the C library's memcpy, a frame the
// runtime's stack walk cannot read). A call of a function that may fault gives the
// calling block the same traits (instrTraits): the caller's activation stops there
// too. The result is the least fixed point over the call graph; computed once per
// module.
func (m *Module) mayFault() map[string]cfg.Traits {
	if m.faults != nil {
		return m.faults
	}
	defined := m.definitions()
	nr := m.mayNotReturn()
	own := map[string]cfg.Traits{}
	callers := map[string][]string{} // callee → the functions of m that call it
	for _, f := range m.Funcs {
		locals, safe := m.variables(f)
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if isCall(in.Op) && !isIntrinsic(in.Callee) {
					if _, ok := defined[in.Callee]; ok {
						callers[in.Callee] = append(callers[in.Callee], f.Name)
					}
					continue
				}
				own[f.Name] |= m.instrTraits(in, locals, safe, defined, nr) & (cfg.MayFault | cfg.MayFaultInLibrary)
			}
		}
	}
	var work []string
	for name, t := range own {
		if t != 0 {
			work = append(work, name)
		}
	}
	for len(work) > 0 {
		g := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range callers[g] {
			if t := own[c] | own[g]; t != own[c] {
				own[c] = t
				work = append(work, c)
			}
		}
	}
	m.faults = own
	return own
}

// definitions maps the name of every function defined in m to it; built once per
// module (rebuilding it for each function made annotating sqlite3.c quadratic).
func (m *Module) definitions() map[string]*Func {
	if m.defined == nil {
		m.defined = make(map[string]*Func, len(m.Funcs))
		for _, f := range m.Funcs {
			m.defined[f.Name] = f
		}
	}
	return m.defined
}

// callMayNotReturn says whether a call of callee ("" for indirect calls and inline
// assembly) may not come back.
func callMayNotReturn(callee string, defined map[string]*Func, nr map[string]bool) bool {
	if isIntrinsic(callee) {
		return false
	}
	if _, ok := defined[callee]; ok {
		return nr[callee]
	}
	return true
}

// isCall reports the instructions that call: call, invoke (a call with an unwind
// edge) and callbr (asm goto).
func isCall(op string) bool { return op == "call" || op == "invoke" || op == "callbr" }

func isIntrinsic(callee string) bool { return strings.HasPrefix(callee, "llvm.") }

// annotate fills the Traits, Cond and Calls (the direct callees) of g's blocks and
// g.ReturnsTwice from f.
func (m *Module) annotate(g *cfg.Func, f *Func) {
	g.ReturnsTwice = f.CallsSetjmp
	nr := m.mayNotReturn()
	m.mayFault()
	defined := m.definitions()
	locals, safe := m.variables(f)
	for i, b := range f.Blocks {
		var t cfg.Traits
		for _, in := range b.Instrs {
			t |= m.instrTraits(in, locals, safe, defined, nr)
			if isCall(in.Op) && !isIntrinsic(in.Callee) && in.Callee != "" {
				g.Blocks[i].Calls = append(g.Blocks[i].Calls, in.Callee)
			}
		}
		g.Blocks[i].Traits = t
		if term := b.Term(); term.Op == "br" && len(term.Targets) == 2 {
			g.Blocks[i].Cond = m.branchCond(b, m.Lines[term.Line])
			m.threadPhi(g.Blocks[i], b, m.Lines[term.Line])
		}
	}
}

// threadPhi sets Edge.Threads on the edges into gb (the IR block b, ending in the
// conditional branch brLine) along which the branch's condition is an i1 phi's
// constant: the join of clang's && and || (`%c = phi i1 [ false, %for.cond ],
// [ %cmp, %land.rhs ]`), which such an edge decides.
func (m *Module) threadPhi(gb *cfg.Block, b *Block, brLine string) {
	c := brCondition(brLine)
	if c == "" {
		return
	}
	def := definition(b, c)
	if def == nil || def.Op != "phi" {
		return
	}
	for _, in := range SplitOperands(afterOp(strings.TrimSpace(m.Lines[def.Line]), "phi")) {
		in = strings.TrimPrefix(in, "i1 ")
		in = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(in), "["), "]"))
		v, label, ok := strings.Cut(in, ",")
		if !ok {
			continue
		}
		k := -1
		switch strings.TrimSpace(v) {
		case "true":
			k = 0
		case "false":
			k = 1
		}
		name, _, ok := localName(strings.TrimPrefix(strings.TrimSpace(label), "%"))
		if k < 0 || !ok {
			continue
		}
		for _, e := range gb.Preds {
			if e.From.Label == name {
				e.Threads = gb.Succs[k].To
			}
		}
	}
}

// variables returns f's locals (its allocas) and the values that are addresses of
// variables (locals, globals, constant offsets into and casts of them).
func (m *Module) variables(f *Func) (locals, safe map[string]bool) {
	locals, safe = map[string]bool{}, map[string]bool{}
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == "alloca" && in.Result != "" {
				locals[in.Result] = true
				safe[in.Result] = true
			}
		}
	}
	// Constant offsets into, and casts of, variables are variables too (defined before
	// use in the blocks' order for clang's output; a second pass catches the rest).
	for pass := 0; pass < 2; pass++ {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Result != "" && (in.Op == "getelementptr" || in.Op == "bitcast") && addressOfVariable(m.Lines[in.Line], in.Op, safe) {
					safe[in.Result] = true
				}
			}
		}
	}
	return locals, safe
}

// instrTraits returns the traits instruction in gives its block; locals are the
// function's allocas, safe the values that are addresses of variables.
func (m *Module) instrTraits(in *Instr, locals, safe map[string]bool, defined map[string]*Func, nr map[string]bool) cfg.Traits {
	var t cfg.Traits
	switch in.Op {
	case "call", "invoke", "callbr":
		if isIntrinsic(in.Callee) {
			if isMemIntrinsic(in.Callee) {
				t |= cfg.MayFault | cfg.MayFaultInLibrary
			}
			return t
		}
		t |= cfg.HasCall
		if callMayNotReturn(in.Callee, defined, nr) {
			t |= cfg.MayNotReturn
		}
		if _, ok := defined[in.Callee]; ok && m.faults != nil {
			t |= m.faults[in.Callee] // the callee may fault: this activation stops here too
		}
	case "store":
		ptr := storeTarget(m.Lines[in.Line])
		if !locals[ptr] {
			t |= cfg.HasStore
		}
		if !isVariable(ptr, safe) {
			t |= cfg.MayFault
		}
	case "load":
		if !isVariable(loadSource(m.Lines[in.Line]), safe) {
			t |= cfg.MayFault
		}
	case "sdiv", "udiv", "srem", "urem":
		ops := SplitOperands(afterOp(m.Lines[in.Line], in.Op))
		if len(ops) < 2 || !isConst(strings.TrimSpace(ops[1])) || strings.TrimSpace(ops[1]) == "0" {
			t |= cfg.MayFault
		}
	case "ret":
		t |= cfg.Returns
	case "unreachable":
		t |= cfg.Unreachable
	}
	return t
}

// storeTarget returns the pointer operand of a store instruction line, if it is a
// local value ("%x"), or "".
func storeTarget(line string) string {
	ops := SplitOperands(afterOp(line, "store"))
	if len(ops) < 2 {
		return ""
	}
	return pointerOperand(ops[1])
}

// afterOp returns the text after the opcode word op (after the result, if any).
func afterOp(line, op string) string {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "%") {
		if k := strings.Index(line, " = "); k >= 0 {
			line = line[k+3:]
		}
	}
	k := strings.Index(line, op+" ")
	if k < 0 {
		return ""
	}
	return line[k+len(op)+1:]
}

// SplitOperands splits an instruction's operand text at the commas outside brackets:
// "i32 %5, ptr @n, align 4" → ["i32 %5", "ptr @n", "align 4"].
func SplitOperands(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// branchCond classifies the condition of the conditional branch ending b.
func (m *Module) branchCond(b *Block, brLine string) cfg.Cond {
	c := brCondition(brLine)
	if c == "" {
		return cfg.CondUnknown
	}
	neg := false
	for depth := 0; depth < 4; depth++ {
		def := definition(b, c)
		if def == nil {
			return cfg.CondUnknown
		}
		line := strings.TrimSpace(m.Lines[def.Line])
		switch def.Op {
		case "xor":
			// %lnot = xor i1 %tobool, true
			xs := SplitOperands(afterOp(line, "xor"))
			if len(xs) == 2 && xs[1] == "true" {
				c = strings.TrimPrefix(xs[0], "i1 ")
				neg = !neg
				continue
			}
			return cfg.CondUnknown
		case "icmp", "fcmp":
			k := classifyCmp(def.Op, afterOp(line, def.Op))
			if neg {
				k = k.Negate()
			}
			return k
		}
		return cfg.CondUnknown
	}
	return cfg.CondUnknown
}

// brCondition returns the condition operand of a conditional branch ("%cmp"), or "".
func brCondition(brLine string) string {
	ops := SplitOperands(afterOp(strings.TrimSpace(brLine), "br"))
	if len(ops) == 0 {
		return ""
	}
	return strings.TrimPrefix(ops[0], "i1 ")
}

func definition(b *Block, name string) *Instr {
	for _, in := range b.Instrs {
		if in.Result == name {
			return in
		}
	}
	return nil
}

// classifyCmp reads "PRED TYPE A, B" of an icmp or fcmp.
func classifyCmp(op, rest string) cfg.Cond {
	ops := SplitOperands(rest)
	if len(ops) < 2 {
		return cfg.CondUnknown
	}
	fs := strings.Fields(ops[0])
	if len(fs) < 3 {
		return cfg.CondUnknown
	}
	pred, a, b := fs[0], fs[len(fs)-1], strings.Fields(ops[1])
	if len(b) == 0 {
		return cfg.CondUnknown
	}
	bv := b[0]
	typ := strings.Join(fs[1:len(fs)-1], " ")
	if op == "fcmp" {
		switch pred {
		case "oeq", "ueq":
			return cfg.EqConst
		case "one", "une":
			return cfg.NeConst
		}
		return cfg.CondUnknown
	}
	if typ == "ptr" || strings.HasSuffix(typ, "*") {
		switch pred {
		case "eq":
			return cfg.PtrEq
		case "ne":
			return cfg.PtrNe
		}
		return cfg.CondUnknown
	}
	aConst, bConst := isConst(a), isConst(bv)
	switch pred {
	case "eq":
		if aConst || bConst {
			return cfg.EqConst
		}
	case "ne":
		if aConst || bConst {
			return cfg.NeConst
		}
	case "slt", "sle":
		if bv == "0" {
			return cfg.LtZero // x < 0, x <= 0
		}
		if a == "0" {
			return cfg.GeZero // 0 < x: x > 0
		}
	case "sgt", "sge":
		if bv == "0" {
			return cfg.GeZero
		}
		if a == "0" {
			return cfg.LtZero // 0 > x
		}
	}
	return cfg.CondUnknown
}

func isConst(s string) bool {
	if s == "null" || s == "true" || s == "false" {
		return true
	}
	if s == "" {
		return false
	}
	c := s[0]
	return c == '-' || c >= '0' && c <= '9'
}

// isMemIntrinsic reports the intrinsics that touch memory through pointers.
func isMemIntrinsic(callee string) bool {
	for _, p := range []string{"llvm.memcpy", "llvm.memmove", "llvm.memset"} {
		if strings.HasPrefix(callee, p) {
			return true
		}
	}
	return false
}

// isVariable reports whether the pointer operand ptr is the address of a variable: a
// global (@g), or a local value known to be one.
func isVariable(ptr string, safe map[string]bool) bool {
	return strings.HasPrefix(ptr, "@") || safe[ptr]
}

// loadSource returns the pointer operand of a load instruction line; a constant
// getelementptr expression on a global stands for the global.
func loadSource(line string) string {
	ops := SplitOperands(afterOp(line, "load"))
	if len(ops) < 2 {
		return ""
	}
	return pointerOperand(ops[1])
}

// pointerOperand reads "TYPE VALUE" of a pointer operand.
func pointerOperand(op string) string {
	if k := strings.Index(op, "getelementptr"); k >= 0 {
		if g := strings.Index(op[k:], "@"); g >= 0 {
			return "@"
		}
	}
	fs := strings.Fields(op)
	if len(fs) == 0 {
		return ""
	}
	return fs[len(fs)-1]
}

// addressOfVariable reports whether a getelementptr with constant indices or a
// bitcast applies to the address of a variable.
func addressOfVariable(line, op string, safe map[string]bool) bool {
	ops := SplitOperands(afterOp(line, op))
	if op == "bitcast" {
		// bitcast TYPE %x to TYPE2
		fs := strings.Fields(ops[0])
		for i, f := range fs {
			if f == "to" && i > 0 {
				return isVariable(fs[i-1], safe)
			}
		}
		return false
	}
	// getelementptr [inbounds] TYPE, PTRTYPE %base, IDXTYPE C, ...
	if len(ops) < 2 {
		return false
	}
	fs := strings.Fields(ops[1])
	if len(fs) == 0 || !isVariable(fs[len(fs)-1], safe) {
		return false
	}
	for _, idx := range ops[2:] {
		f := strings.Fields(idx)
		if len(f) < 2 || !isConst(f[len(f)-1]) {
			return false
		}
	}
	return true
}
