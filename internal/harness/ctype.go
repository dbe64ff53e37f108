// This file names C types as the source writes them, from debug info, for messages
// about what --func cannot fill, and reads the shape of array types.

package harness

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// cType returns the C spelling of debug type id: "int", "unsigned long",
// "struct point *", "double [3][4]", "int (*)[4]", "const char *", a typedef's name.
func cType(m *llvmir.Module, id int) string {
	return cDecl(m, id, "")
}

// cDecl spells the declaration of inner (a declarator, "" for an abstract one) with
// the debug type id, C's inside-out way: the array dimensions bind tighter than *.
func cDecl(m *llvmir.Module, id int, inner string) string {
	join := func(base, decl string) string { return strings.TrimSpace(base + " " + decl) }
	n := m.Meta[id]
	for k := 0; k < 100; k++ {
		if n == nil {
			return join("void", inner)
		}
		switch n.Kind {
		case "DIBasicType":
			return join(n.Str("name"), inner)
		case "DIDerivedType":
			switch n.Field("tag") {
			case "DW_TAG_typedef":
				return join(n.Str("name"), inner)
			case "DW_TAG_const_type":
				return "const " + cDecl(m, n.Ref("baseType"), inner)
			case "DW_TAG_volatile_type":
				return "volatile " + cDecl(m, n.Ref("baseType"), inner)
			case "DW_TAG_restrict_type":
				return cDecl(m, n.Ref("baseType"), "restrict "+inner)
			case "DW_TAG_pointer_type":
				ptr := "*" + inner
				if b := m.Meta[n.Ref("baseType")]; b != nil && b.Kind == "DICompositeType" && b.Field("tag") == "DW_TAG_array_type" {
					ptr = "(" + ptr + ")"
				}
				return cDecl(m, n.Ref("baseType"), ptr)
			}
			return join(strings.TrimPrefix(n.Field("tag"), "DW_TAG_"), inner)
		case "DICompositeType":
			name := n.Str("name")
			switch n.Field("tag") {
			case "DW_TAG_array_type":
				return cDecl(m, n.Ref("baseType"), inner+arrayDims(m, n))
			case "DW_TAG_structure_type":
				return join("struct "+name, inner)
			case "DW_TAG_union_type":
				return join("union "+name, inner)
			case "DW_TAG_enumeration_type":
				return join("enum "+name, inner)
			}
			return join(name, inner)
		case "DISubroutineType":
			return join("function", inner)
		}
		return join("?", inner)
	}
	return "?"
}

// arrayDims spells the dimensions of an array debug type: "[3][4]", "[]" for an
// unknown count.
func arrayDims(m *llvmir.Module, n *llvmir.MDNode) string {
	var sb strings.Builder
	el := m.Meta[n.Ref("elements")]
	if el == nil || len(el.Elems) == 0 {
		return "[]"
	}
	for _, r := range el.Elems {
		sr := m.Meta[r]
		if sr == nil || sr.Kind != "DISubrange" || sr.Field("count") == "" || strings.HasPrefix(sr.Field("count"), "!") {
			sb.WriteString("[]")
			continue
		}
		fmt.Fprintf(&sb, "[%d]", sr.Int("count"))
	}
	return sb.String()
}

// arrayElem follows an array debug type (of any rank) to its element type.
func arrayElem(m *llvmir.Module, n *llvmir.MDNode) *llvmir.MDNode {
	for k := 0; n != nil && k < 100; k++ {
		n = strip(m, n)
		if n == nil || n.Kind != "DICompositeType" || n.Field("tag") != "DW_TAG_array_type" {
			return n
		}
		n = m.Meta[n.Ref("baseType")]
	}
	return n
}

// irArray reads an IR array type of any rank, "[3 x [4 x i32]]": its number of
// elements in all (12) and their type ("i32").
func irArray(t string) (total int, elem string, ok bool) {
	total = 1
	for strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		t = strings.TrimSpace(t[1 : len(t)-1])
		x := strings.Index(t, " x ")
		if x < 0 {
			return 0, "", false
		}
		n, err := strconv.Atoi(t[:x])
		if err != nil || n < 0 {
			return 0, "", false
		}
		total *= n
		t = strings.TrimSpace(t[x+3:])
	}
	return total, t, t != "" && !strings.HasPrefix(t, "[")
}

// globalDIType returns the debug type of the global variable name, or -1.
func globalDIType(m *llvmir.Module, name string) int {
	for _, n := range m.Meta {
		if n.Kind == "DIGlobalVariable" && n.Str("name") == name && n.Field("isDefinition") != "false" {
			return n.Ref("type")
		}
	}
	for _, n := range m.Meta {
		if n.Kind == "DIGlobalVariable" && n.Str("name") == name {
			return n.Ref("type")
		}
	}
	return -1
}
