// This file tells whether the runtime can walk the stack of code compiled from a
// module, and makes sure it can: frame pointers in every function.

package llvmir

import (
	"slices"
	"strings"
)

// WalkableStack reports whether, compiled at -O0, the functions of m that
// instrumentation rewrites can be found on a faulting thread's stack by the
// runtime's frame-pointer walk (runtime/c/walk.c) and told apart block by block: the
// target is x86-64; every definition is local to the linked program (internal,
// private or dso_local: a table can point at it without a dynamic relocation) and
// not one the linker may replace by another unit's copy (weak, linkonce, COMDAT);
// and none is always_inline (the -O0 pipeline would still inline it, and its blocks
// would lie inside its callers' code). Frame pointers are the caller's business
// (ForceFramePointers).
func (m *Module) WalkableStack() bool {
	x86 := false
	for _, l := range m.Lines {
		if strings.HasPrefix(l, "target triple = ") {
			x86 = strings.HasPrefix(strings.TrimPrefix(l, "target triple = "), `"x86_64-`)
			break
		}
		if strings.HasPrefix(l, "define ") {
			break
		}
	}
	if !x86 {
		return false
	}
	groups := m.attributeGroups()
	for _, f := range m.Funcs {
		def := m.Lines[f.Line]
		if strings.Contains(def, " available_externally ") {
			continue // not instrumented, and inlined as the callers' own code
		}
		head := strings.Fields(def[:max(strings.IndexByte(def, '@'), 0)])
		replaceable := strings.Contains(def, " comdat") || slices.ContainsFunc(head, func(w string) bool {
			return strings.HasPrefix(w, "weak") || strings.HasPrefix(w, "linkonce")
		})
		if slices.Contains(strings.Fields(def), "alwaysinline") || replaceable ||
			!linkageLocal(def) && !slices.Contains(head, "dso_local") {
			return false
		}
		for _, g := range attrRefs(def) {
			if slices.Contains(strings.Fields(groups[g]), "alwaysinline") {
				return false
			}
		}
	}
	return true
}

// ForceFramePointers makes every attribute group of m say "frame-pointer"="all":
// each function then keeps its frame pointer, as clang -O0 compiles them (fragprof's
// front end prints IR meant to be optimised, without them).
func (m *Module) ForceFramePointers() {
	for i, l := range m.Lines {
		if !strings.HasPrefix(l, "attributes #") {
			continue
		}
		open, close := strings.IndexByte(l, '{'), strings.LastIndexByte(l, '}')
		if open < 0 || close < open {
			continue
		}
		body := l[open+1 : close]
		if k := strings.Index(body, `"frame-pointer"="`); k >= 0 {
			end := strings.IndexByte(body[k+len(`"frame-pointer"="`):], '"')
			if end < 0 {
				continue
			}
			body = body[:k] + `"frame-pointer"="all"` + body[k+len(`"frame-pointer"="`)+end+1:]
		} else {
			body = strings.TrimRight(body, " ") + ` "frame-pointer"="all" `
		}
		m.Replace(i, l[:open+1]+body+l[close:])
	}
}

// attributeGroups maps the number of each attribute group ("#0" → "0") to its text.
func (m *Module) attributeGroups() map[string]string {
	groups := map[string]string{}
	for _, l := range m.Lines {
		if rest, ok := strings.CutPrefix(l, "attributes #"); ok {
			if k := strings.IndexByte(rest, ' '); k > 0 {
				groups[rest[:k]] = rest[k:]
			}
		}
	}
	return groups
}

// attrRefs returns the attribute groups a define line refers to ("#0 #3" → 0, 3):
// its words of a # and digits (nothing else in a define line is spelt so).
func attrRefs(def string) []string {
	var refs []string
	for _, w := range strings.Fields(def) {
		if g, ok := strings.CutPrefix(w, "#"); ok && g != "" && strings.Trim(g, "0123456789") == "" {
			refs = append(refs, g)
		}
	}
	return refs
}
