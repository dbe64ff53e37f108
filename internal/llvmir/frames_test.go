package llvmir

import (
	"strings"
	"testing"
)

// TestRetType: the return type of a define line, spelt as typed pointers need it to
// name the function's type: struct, packed struct, vector and array returns, pointers
// to them, and a function pointer.
func TestRetType(t *testing.T) {
	for head, want := range map[string]string{
		"define dso_local i32 ":                        "i32",
		"define internal noundef signext i8 ":          "i8",
		"define internal { i64, i32 } ":                "{ i64, i32 }",
		"define internal <{ i8, { i32, i16 } }> ":      "<{ i8, { i32, i16 } }>",
		"define dso_local <4 x float> ":                "<4 x float>",
		"define dso_local noalias align 8 %struct.S* ": "%struct.S*",
		"define internal { i32 }** ":                   "{ i32 }**",
		"define dso_local void (i32, ...)* ":           "void (i32, ...)*",
		"define dso_local [2 x i64] ":                  "[2 x i64]",
	} {
		if got := retType(head); got != want {
			t.Errorf("retType(%q) = %q, want %q", head, got, want)
		}
	}
}

// TestFuncPtrType: typed pointers spell a function's type from its define line; a
// personality routine's variadic type after the parameters is not the function's.
func TestFuncPtrType(t *testing.T) {
	ir := `target triple = "x86_64-pc-linux-gnu"

define dso_local { i64, i32 } @pair(i32 noundef %x, i8* noundef %p) #0 {
entry:
  %0 = load i8, i8* %p, align 1
  ret { i64, i32 } zeroinitializer
}

define dso_local i32 @f(i32 noundef %x) #0 personality i8* bitcast (i32 (...)* @__gxx_personality_v0 to i8*) {
entry:
  ret i32 %x
}

define dso_local i32 @v(i32 noundef %n, ...) #1 {
entry:
  ret i32 %n
}

declare i32 @__gxx_personality_v0(...)

attributes #0 = { noinline nounwind "frame-pointer"="none" }
attributes #1 = { nounwind }
`
	m, err := ParseDialect("t.ll", []byte(ir), false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pair": "{ i64, i32 } (i32, i8*)*", "f": "i32 (i32)*", "v": "i32 (i32, ...)*"}
	for _, f := range m.Funcs {
		if got := m.FuncPtrType(f); got != want[f.Name] {
			t.Errorf("%s: %q, want %q", f.Name, got, want[f.Name])
		}
	}
	if !m.WalkableStack() {
		t.Error("WalkableStack refuses dso_local functions on x86-64")
	}
	m.ForceFramePointers()
	out := string(m.Bytes())
	if strings.Count(out, `"frame-pointer"="all"`) != 2 || strings.Contains(out, `"frame-pointer"="none"`) {
		t.Errorf("ForceFramePointers left:\n%s", out)
	}
	for _, bad := range []string{"define weak_odr dso_local i32 @g() {\nentry:\n  ret i32 0\n}\n", "define i32 @g() {\nentry:\n  ret i32 0\n}\n",
		"define internal i32 @g() alwaysinline {\nentry:\n  ret i32 0\n}\n"} {
		m, err := ParseDialect("t.ll", []byte(ir+"\n"+bad), false)
		if err != nil {
			t.Fatal(err)
		}
		if m.WalkableStack() {
			t.Errorf("WalkableStack accepts %q", strings.SplitN(bad, "\n", 2)[0])
		}
	}
}
