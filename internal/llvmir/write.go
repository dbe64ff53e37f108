// This file holds the helpers that print IR text: label references, string
// constants, and retargeted terminators.

package llvmir

import (
	"fmt"
	"strings"
)

// LabelRef prints a reference to the block labelled name: %name, or %"name" when the
// name needs quoting.
func LabelRef(name string) string {
	for _, c := range name {
		if !isIdentChar(c) {
			return `%"` + escape(name) + `"`
		}
	}
	return "%" + name
}

// GlobalRef prints a reference to the global named name: @name, or @"name" when
// the name needs quoting.
func GlobalRef(name string) string { return "@" + LabelRef(name)[1:] }

// FuncPtrType prints the type of a pointer to f in m's dialect: ptr, or with typed
// pointers f's function type and a star ("i32 (i32, i8**)*", "void (i8*, ...)*").
func (m *Module) FuncPtrType(f *Func) string {
	if m.Opaque {
		return "ptr"
	}
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Type)
	}
	if f.Variadic {
		ps = append(ps, "...")
	}
	return f.RetType + " (" + strings.Join(ps, ", ") + ")*"
}

func escape(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			fmt.Fprintf(&sb, `\%02X`, c)
		} else {
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// EscapeString prints data as the body of an IR c"..." string constant.
func EscapeString(data []byte) string { return escape(string(data)) }

// RetargetTerm rewrites a terminator (its lines) so that target i (in operand order,
// as Instr.Targets) jumps to newLabel[i] instead.
func RetargetTerm(lines []string, newLabel map[int]string) []string {
	out := make([]string, len(lines))
	idx := 0
	for k, l := range lines {
		var sb strings.Builder
		for {
			p := strings.Index(l, "label %")
			if p < 0 {
				sb.WriteString(l)
				break
			}
			sb.WriteString(l[:p+len("label ")])
			rest := l[p+len("label %"):]
			name, after, ok := localName(rest)
			if !ok {
				sb.WriteString(l[p+len("label "):])
				break
			}
			if nl, ok := newLabel[idx]; ok {
				sb.WriteString(LabelRef(nl))
			} else {
				sb.WriteString(LabelRef(name))
			}
			idx++
			l = after
		}
		out[k] = sb.String()
	}
	return out
}
