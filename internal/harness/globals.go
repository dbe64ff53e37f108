// This file finds the globals that the studied function reads and that the program's
// main sets at run time: --func runs the function without main, so such a global keeps
// its static value (zero, usually) unless an input binds it.

package harness

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/fragprof/fragprof/internal/llvmir"
)

var reGlobalRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@("[^"]+"|[-a-zA-Z$._0-9]+)`) })

// globalUse is what one function does with globals: the ones it reads (loads, or
// hands to a call) and writes (stores, or hands to a call, which may fill it:
// scanf("%d", &n), memset, an init function), and the functions it calls.
type globalUse struct {
	reads, writes map[string]bool
	callees       []string
}

// useOf scans f's instructions. A register computed from a global's address (a
// getelementptr or bitcast) stands for that global.
func useOf(m *llvmir.Module, f *llvmir.Func) globalUse {
	u := globalUse{reads: map[string]bool{}, writes: map[string]bool{}}
	derived := map[string][]string{} // register → the globals it points into
	refs := func(text string) []string {
		var gs []string
		for _, r := range reGlobalRef().FindAllStringSubmatch(text, -1) {
			gs = append(gs, strings.Trim(r[1], `"`))
		}
		for reg, g := range derived {
			if hasReg(text, reg) {
				gs = append(gs, g...)
			}
		}
		return gs
	}
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			text := m.Text(in.Line)
			if eq := strings.Index(text, " = "); in.Result != "" && eq >= 0 {
				text = text[eq+3:]
			}
			ops := llvmir.SplitOperands(text)
			switch in.Op {
			case "getelementptr", "bitcast", "addrspacecast":
				if gs := refs(text); len(gs) > 0 && in.Result != "" {
					derived[in.Result] = gs
				}
			case "store":
				if len(ops) >= 2 {
					for _, g := range refs(ops[1]) {
						u.writes[g] = true
					}
				}
			case "load":
				if len(ops) >= 2 {
					for _, g := range refs(ops[1]) {
						u.reads[g] = true
					}
				}
			case "call":
				if in.Callee != "" {
					u.callees = append(u.callees, in.Callee)
				}
				args := text
				if k := strings.Index(text, "("); k >= 0 {
					args = text[k:]
				}
				for _, g := range refs(args) {
					if g != in.Callee {
						u.reads[g], u.writes[g] = true, true
					}
				}
			}
		}
	}
	return u
}

// mainSetGlobals returns, sorted, the globals of m that fn (or a function it calls)
// reads and that main (or a function it calls, other than fn) writes, leaving out
// constants and the names in bound. Empty when the unit has no main.
func mainSetGlobals(m *llvmir.Module, fn string, bound map[string]bool) []string {
	funcs := map[string]*llvmir.Func{}
	for _, f := range m.Funcs {
		funcs[f.Name] = f
	}
	if funcs["main"] == nil {
		return nil
	}
	uses := map[string]globalUse{}
	use := func(name string) globalUse {
		if u, ok := uses[name]; ok {
			return u
		}
		u := useOf(m, funcs[name])
		uses[name] = u
		return u
	}
	reach := func(from string, skip string) []string {
		seen := map[string]bool{from: true}
		stack, out := []string{from}, []string{from}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, c := range use(f).callees {
				if funcs[c] != nil && !seen[c] && c != skip {
					seen[c] = true
					stack = append(stack, c)
					out = append(out, c)
				}
			}
		}
		return out
	}
	written := map[string]bool{}
	for _, f := range reach("main", fn) {
		for g := range use(f).writes {
			written[g] = true
		}
	}
	globals := moduleGlobals(m)
	var out []string
	seen := map[string]bool{}
	for _, f := range reach(fn, "main") {
		for g := range use(f).reads {
			gl, ok := globals[g]
			if !ok || gl.constant || !written[g] || bound[g] || seen[g] {
				continue
			}
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// hasReg reports whether text mentions the register reg ("%5" in "i32* %5)", not in
// "%50").
func hasReg(text, reg string) bool {
	for i := 0; ; {
		k := strings.Index(text[i:], reg)
		if k < 0 {
			return false
		}
		end := i + k + len(reg)
		if end == len(text) || !isIdentByte(text[end]) {
			return true
		}
		i = end
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
