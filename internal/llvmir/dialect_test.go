package llvmir

import (
	"os"
	"strings"
	"testing"
)

// TestDialect checks that the pointer dialect is what the caller says
// (ParseDialect) or, for Parse, what the first load or store's pointer operand
// says — never text that merely contains "ptr", as sqlite3.c's strings do.
func TestDialect(t *testing.T) {
	for _, f := range testFiles(t) {
		data, _ := os.ReadFile(f)
		m, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Contains(f, "clang16"); m.Opaque != want {
			t.Errorf("%s: Parse read opaque=%v, want %v", f, m.Opaque, want)
		}
	}
	typed := `@.str = private unnamed_addr constant [18 x i8] c"Bad ptr map entry\00", align 1
@ptr = global i8* null, align 8

define i32 @f(i8* %ptr, i32 %n) {
entry:
  %ptr.addr = alloca i8*, align 8
  store i8* %ptr, i8** %ptr.addr, align 8
  ret i32 %n
}
`
	m, err := Parse("typed.ll", []byte(typed))
	if err != nil {
		t.Fatal(err)
	}
	if m.Opaque {
		t.Errorf("Parse took a typed module with \" ptr \" in a string for an opaque one")
	}
	opaque := `define i32 @f(ptr %p) {
entry:
  %v = load i32, ptr %p, align 4
  ret i32 %v
}
`
	if m, err = Parse("opaque.ll", []byte(opaque)); err != nil || !m.Opaque {
		t.Errorf("Parse read an opaque module as typed (err %v)", err)
	}
	for _, want := range []bool{false, true} {
		m, err := ParseDialect("typed.ll", []byte(typed), want)
		if err != nil || m.Opaque != want {
			t.Errorf("ParseDialect(%v): opaque=%v, err %v", want, m.Opaque, err)
		}
	}
}
