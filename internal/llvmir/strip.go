// This file implements leaving a module's debug information out when it is written
// (Module.StripDebug), as LLVM's StripDebugInfo does: fragprof reads its positions
// from clang's -g IR, but a build the user did not ask to debug should cost the back
// end no more than clang's own build without -g.

package llvmir

import (
	"strconv"
	"strings"
)

// stripPlan is what WriteTo leaves out or rewrites when the module's debug
// information is stripped.
type stripPlan struct {
	keep      map[int]bool   // metadata nodes still referenced once debug information is gone
	rewrite   map[int]string // loop metadata without its DILocations: the new right-hand side
	dropFlags map[int]bool   // the "Dwarf Version" and "Debug Info Version" module flags
}

// StripDebug makes WriteTo leave out the module's debug information, edits applied:
// the llvm.dbg.* intrinsic calls (and
// #dbg_ records), every !dbg attachment (instructions, functions, declarations,
// globals), the llvm.dbg.* named metadata, the "Dwarf Version" and "Debug Info
// Version" module flags, the DILocations of loop metadata, and every metadata node
// that nothing else refers to then. It is what LLVM's StripDebugInfo does, in text, so
// that clang neither parses, verifies, optimises around nor emits what the user did
// not ask for. Call it after the last edit: what it keeps is computed from the
// module's text with the edits scheduled so far.
//
// It reports false, and leaves the module to be written whole, if something other
// than debug information or loop metadata refers to a debug-information node (a
// !heapallocsite type, say), which stripping would leave dangling.
func (m *Module) StripDebug() bool {
	m.strip = nil
	defs := map[int]string{}
	var roots, flags []int
	m.eachOutputLine(func(s string) {
		switch c := lineClass(s); c {
		case classMeta:
			n, rhs, ok := metaDef(s)
			if ok {
				defs[n] = rhs
			}
		case classNamed:
			name := s[1:strings.IndexByte(s, ' ')]
			switch {
			case strings.HasPrefix(name, "llvm.dbg."):
			case name == "llvm.module.flags":
				flags = appendRefs(flags, s)
			default:
				roots = appendRefs(roots, s)
			}
		case classDbgCall:
		default:
			roots = appendRefs(roots, stripDbgAttachment(s))
		}
	})
	p := &stripPlan{keep: map[int]bool{}, rewrite: map[int]string{}, dropFlags: map[int]bool{}}
	for _, f := range flags {
		if d := defs[f]; strings.Contains(d, `!"Dwarf Version"`) || strings.Contains(d, `!"Debug Info Version"`) {
			p.dropFlags[f] = true
		} else {
			roots = append(roots, f)
		}
	}
	queue := roots
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if p.keep[n] {
			continue
		}
		rhs, ok := defs[n]
		if !ok {
			continue // a forward reference the text does not define: clang will say so
		}
		if isDebugNode(rhs) {
			return false
		}
		p.keep[n] = true
		refs := appendRefs(nil, rhs)
		var di []int
		for _, r := range refs {
			if isDebugNode(defs[r]) {
				di = append(di, r)
			}
		}
		if len(di) > 0 {
			nrhs, ok := dropLoopLocations(n, rhs, defs)
			if !ok {
				return false
			}
			p.rewrite[n] = nrhs
			refs = appendRefs(nil, nrhs)
		}
		queue = append(queue, refs...)
	}
	m.strip = p
	return true
}

// line classes for stripping.
const (
	classOther   = iota
	classMeta    // !N = ...
	classNamed   // !name = !{...}
	classDbgCall // call void @llvm.dbg.*(...), #dbg_*(...)
)

func lineClass(s string) int {
	if len(s) > 1 && s[0] == '!' {
		if s[1] >= '0' && s[1] <= '9' {
			return classMeta
		}
		if strings.IndexByte(s, ' ') > 1 {
			return classNamed
		}
		return classOther
	}
	t := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(t, "#dbg_") {
		return classDbgCall
	}
	for _, p := range []string{"tail ", "notail ", "musttail "} {
		t = strings.TrimPrefix(t, p)
	}
	if strings.HasPrefix(t, "call void @llvm.dbg.") {
		return classDbgCall
	}
	return classOther
}

// metaDef splits "!N = rhs".
func metaDef(s string) (int, string, bool) {
	eq := strings.Index(s, " = ")
	if eq < 0 {
		return 0, "", false
	}
	n, err := strconv.Atoi(s[1:eq])
	if err != nil {
		return 0, "", false
	}
	return n, s[eq+3:], true
}

// isDebugNode reports whether the right-hand side of a metadata definition is a
// debug-information node.
func isDebugNode(rhs string) bool {
	rhs = strings.TrimPrefix(rhs, "distinct ")
	return strings.HasPrefix(rhs, "!DI") || strings.HasPrefix(rhs, "!GenericDINode")
}

// appendRefs appends the metadata numbers (!N) that s refers to outside quoted strings.
func appendRefs(refs []int, s string) []int {
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			inStr = !inStr
			continue
		}
		if inStr || c != '!' || i+1 >= len(s) || s[i+1] < '0' || s[i+1] > '9' {
			continue
		}
		j := i + 1
		n := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			n = n*10 + int(s[j]-'0')
			j++
		}
		refs = append(refs, n)
		i = j - 1
	}
	return refs
}

// stripDbgAttachment removes the !dbg attachments of an instruction, function,
// declaration or global line (", !dbg !N" or " !dbg !N"), outside quoted strings.
func stripDbgAttachment(s string) string {
	if !strings.Contains(s, "!dbg !") {
		return s
	}
	var sb strings.Builder
	inStr := false
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			inStr = !inStr
			continue
		}
		if inStr || c != '!' || !strings.HasPrefix(s[i:], "!dbg !") {
			continue
		}
		j := i + len("!dbg !")
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j || i == 0 || s[i-1] != ' ' {
			continue
		}
		from := i - 1
		if from > 0 && s[from-1] == ',' {
			from--
		}
		sb.WriteString(s[last:from])
		last = k
		i = k - 1
	}
	sb.WriteString(s[last:])
	return sb.String()
}

// dropLoopLocations rewrites loop metadata, distinct !{!N, !loc1, !loc2, props...}
// (the node's first element is the node itself), without its elements that are
// debug-information nodes. Other nodes that refer to debug information are not
// rewritten (ok is false).
func dropLoopLocations(n int, rhs string, defs map[int]string) (string, bool) {
	const pre = "distinct !{"
	if !strings.HasPrefix(rhs, pre) || !strings.HasSuffix(rhs, "}") {
		return "", false
	}
	elems := splitTop(rhs[len(pre) : len(rhs)-1])
	if len(elems) == 0 || elems[0] != "!"+strconv.Itoa(n) {
		return "", false
	}
	kept := elems[:0:0]
	for _, e := range elems {
		if len(e) > 1 && e[0] == '!' && e[1] >= '0' && e[1] <= '9' {
			if r, err := strconv.Atoi(e[1:]); err == nil && isDebugNode(defs[r]) {
				continue
			}
		}
		kept = append(kept, e)
	}
	return pre + strings.Join(kept, ", ") + "}", true
}

// splitTop splits a metadata tuple's body at its top-level commas, trimmed.
func splitTop(body string) []string {
	var out []string
	depth, start, inStr := 0, 0, false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '(' || c == '[' || c == '<':
			depth++
		case c == '}' || c == ')' || c == ']' || c == '>':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(body[start:i]))
			start = i + 1
		}
	}
	if t := strings.TrimSpace(body[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// filter returns line s as the stripped module writes it, or false to leave it out.
func (p *stripPlan) filter(s string) (string, bool) {
	switch lineClass(s) {
	case classMeta:
		n, _, ok := metaDef(s)
		if !ok {
			return s, true
		}
		if !p.keep[n] {
			return "", false
		}
		if r, ok := p.rewrite[n]; ok {
			return "!" + strconv.Itoa(n) + " = " + r, true
		}
		return s, true
	case classNamed:
		name := s[1:strings.IndexByte(s, ' ')]
		if strings.HasPrefix(name, "llvm.dbg.") {
			return "", false
		}
		if name == "llvm.module.flags" && len(p.dropFlags) > 0 {
			var kept []string
			for _, r := range appendRefs(nil, s) {
				if !p.dropFlags[r] {
					kept = append(kept, "!"+strconv.Itoa(r))
				}
			}
			return "!llvm.module.flags = !{" + strings.Join(kept, ", ") + "}", true
		}
		return s, true
	case classDbgCall:
		return "", false
	}
	return stripDbgAttachment(s), true
}
