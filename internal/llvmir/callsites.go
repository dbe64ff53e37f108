// This file finds the functions whose number of activations their call sites tell.

package llvmir

import (
	"slices"
	"strings"

	"github.com/fragprof/fragprof/cfg"
)

// EntriesFromCalls returns the functions of m whose activations in a run are the
// executions of their call sites, each a call in a block that runs it whenever it is
// entered, so that the count of every calling block, summed over the call sites,
// counts them (instrument's chords then need no counter at their entry):
//
//   - internal or private definitions, other than main: every caller is in m; and
//     linkonce_odr ones in a COMDAT group of their own or none (C++ inline functions
//     and templates), which the caller must then make internal (Internalize) so that
//     every caller of this copy is in m too;
//   - whose name m mentions nowhere but in their definition and in direct calls and
//     invokes (no address taken: no indirect call, alias, initialiser or llvm.used
//     entry can reach them);
//   - that are not recursive, directly or through other functions of m (their count
//     would depend on itself);
//   - whose every call site is in a function that is instrumented (not
//     available_externally, a copy of code defined elsewhere, which the optimiser
//     may inline while the counts ignore it) and does not call setjmp (a longjmp
//     comes back into the middle of a block) and is preceded in its block by no call
//     that may not return (exit(), longjmp) nor, with faults, by an instruction that
//     may fault (cfg.MayFault): the activation could stop before the call.
func (m *Module) EntriesFromCalls(faults bool) map[string]bool {
	mentions := globalMentions(m.Lines)
	defined := m.definitions()
	nr := m.mayNotReturn()
	m.mayFault()
	calls := map[string]int{}        // direct call sites, by callee
	callees := map[string][]string{} // the call graph among m's definitions
	good := map[string]bool{}        // candidates whose call sites so far qualify
	stop := cfg.MayNotReturn
	if faults {
		stop |= cfg.MayFault
	}
	grouped := m.comdatIndex().grouped
	for _, f := range m.Funcs {
		if def := m.Lines[f.Line]; f.Name != "main" && (linkageLocal(def) || internalizable(def, f.Name, grouped)) {
			good[f.Name] = true
		}
	}
	for _, f := range m.Funcs {
		var locals, safe map[string]bool
		external := strings.Contains(m.Lines[f.Line], " available_externally ")
		for _, b := range f.Blocks {
			blocked := false // an instruction before this one may stop the activation
			for _, in := range b.Instrs {
				if isCall(in.Op) && in.Callee != "" {
					if _, ok := defined[in.Callee]; ok {
						calls[in.Callee]++
						callees[f.Name] = append(callees[f.Name], in.Callee)
						if blocked || f.CallsSetjmp || external {
							delete(good, in.Callee)
						}
					}
				}
				if !blocked {
					if locals == nil {
						locals, safe = m.variables(f)
					}
					blocked = m.instrTraits(in, locals, safe, defined, nr)&stop != 0
				}
			}
		}
	}
	for name := range good {
		if mentions[name] != 1+calls[name] {
			delete(good, name)
		}
	}
	for name := range recursive(m.Funcs, callees) {
		delete(good, name)
	}
	return good
}

// linkageLocal reports a define line of internal or private linkage.
func linkageLocal(define string) bool {
	for _, w := range strings.Fields(define) {
		switch w {
		case "internal", "private":
			return true
		case "define":
			continue
		}
		if strings.HasPrefix(w, "@") {
			break
		}
	}
	return false
}

// internalizable reports a linkonce_odr definition that Internalize can make
// internal: in no COMDAT group or in its own, with no other member (grouped: the
// groups named by a comdat($name) of a global).
func internalizable(define, name string, grouped map[string]bool) bool {
	head, tail, _ := strings.Cut(define, "@")
	if !slices.Contains(strings.Fields(head), "linkonce_odr") {
		return false
	}
	return !strings.Contains(tail, " comdat(") && !grouped[name]
}

// comdats indexes a module's COMDAT groups.
type comdats struct {
	decl    map[string]int  // the line of each group's declaration ($name = comdat any)
	grouped map[string]bool // groups that some global joins by name: comdat($name)
}

// comdatIndex returns m's COMDAT groups, read once. A function's own group
// ("comdat" alone after its signature) is not among the grouped ones.
func (m *Module) comdatIndex() *comdats {
	if m.comdats != nil {
		return m.comdats
	}
	c := &comdats{decl: map[string]int{}, grouped: map[string]bool{}}
	for i, l := range m.Lines {
		if strings.HasPrefix(l, "$") {
			if name, rest, ok := localName(l[1:]); ok && strings.HasPrefix(rest, " = comdat ") {
				c.decl[name] = i
			}
			continue
		}
		for {
			k := strings.Index(l, " comdat($")
			if k < 0 {
				break
			}
			name, rest, ok := localName(l[k+len(" comdat($"):])
			if !ok {
				break
			}
			c.grouped[name] = true
			l = rest
		}
	}
	m.comdats = c
	return c
}

// Internalize gives the linkonce_odr function name (EntriesFromCalls) internal
// linkage: it leaves its COMDAT group, which it is alone in and which is deleted,
// and its visibility, which a local symbol cannot have. Calls from other units then
// go to their own copies, which the ODR makes equivalent, and this copy's callers
// are all in m. A definition of local linkage is left as it is; it reports whether
// it changed the definition.
func (m *Module) Internalize(name string) bool {
	f, ok := m.definitions()[name]
	if !ok {
		return false
	}
	def := m.Text(f.Line)
	k := strings.IndexByte(def, '@')
	if k < 0 || linkageLocal(def) {
		return false
	}
	var head []string
	odr := false
	for _, w := range strings.Fields(def[:k]) {
		switch w {
		case "linkonce_odr":
			w, odr = "internal", true
		case "hidden", "protected":
			continue
		}
		head = append(head, w)
	}
	if !odr {
		return false // weak, external: other units may rely on this very copy
	}
	tail := def[k:]
	if j := strings.Index(tail, " comdat "); j >= 0 {
		tail = tail[:j] + tail[j+len(" comdat"):]
		if i, ok := m.comdatIndex().decl[name]; ok {
			m.Replace(i, "")
		}
	}
	m.Replace(f.Line, strings.Join(head, " ")+" "+tail)
	return true
}

// globalMentions counts the @names in lines, by name (unquoted). An @ inside a string
// constant counts too: a name mentioned once more than it is called is never taken
// for one whose address is not taken.
func globalMentions(lines []string) map[string]int {
	n := map[string]int{}
	for _, l := range lines {
		for {
			k := strings.IndexByte(l, '@')
			if k < 0 {
				break
			}
			name, rest, ok := localName(l[k+1:])
			if ok {
				n[name]++
				l = rest
			} else {
				l = l[k+1:]
			}
		}
	}
	return n
}

// recursive returns the functions on a cycle of the call graph (Tarjan's strongly
// connected components; a function that calls itself is one).
func recursive(funcs []*Func, callees map[string][]string) map[string]bool {
	index := map[string]int{}
	low := map[string]int{}
	on := map[string]bool{}
	var stack []string
	out := map[string]bool{}
	var visit func(v string)
	visit = func(v string) {
		index[v] = len(index)
		low[v] = index[v]
		stack = append(stack, v)
		on[v] = true
		for _, w := range callees[v] {
			if w == v {
				out[v] = true
			}
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var scc []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			if len(scc) > 1 {
				for _, w := range scc {
					out[w] = true
				}
			}
		}
	}
	for _, f := range funcs {
		if _, seen := index[f.Name]; !seen {
			visit(f.Name)
		}
	}
	return out
}
