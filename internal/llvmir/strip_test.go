package llvmir

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	reRef = regexp.MustCompile(`!(\d+)`)
	reDef = regexp.MustCompile(`(?m)^!(\d+) = `)
)

// checkStripped fails t unless out, a stripped module, is free of debug information
// and defines every metadata node it refers to.
func checkStripped(t *testing.T, name, out string) {
	t.Helper()
	for _, bad := range []string{"!DI", "!dbg", "llvm.dbg.cu", "call void @llvm.dbg.", `"Debug Info Version"`, `"Dwarf Version"`} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: stripped module still holds %q", name, bad)
		}
	}
	defined := map[string]bool{}
	for _, m := range reDef.FindAllStringSubmatch(out, -1) {
		defined[m[1]] = true
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `c"`) {
			continue // a string constant's bytes are not references
		}
		for _, m := range reRef.FindAllStringSubmatch(line, -1) {
			if !defined[m[1]] {
				t.Errorf("%s: !%s is referred to but no longer defined: %s", name, m[1], line)
			}
		}
	}
}

// TestStripDebug strips the debug information of every test module (clang 14's and
// 16's -g IR) and checks that none is left, that loop metadata and alias tags stay,
// and — with clang at hand — that the result compiles to an object without DWARF
// while the unstripped module's object has it.
func TestStripDebug(t *testing.T) {
	for _, f := range testFiles(t) {
		data, _ := os.ReadFile(f)
		m, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if !m.StripDebug() {
			t.Fatalf("%s: StripDebug refused", f)
		}
		out := string(m.Bytes())
		checkStripped(t, f, out)
		for _, keep := range []string{"!llvm.module.flags", "llvm.loop.mustprogress", "!tbaa !"} {
			if strings.Contains(string(data), keep) && !strings.Contains(out, keep) {
				t.Errorf("%s: %q was stripped too", f, keep)
			}
		}
		if _, err := Parse(f, []byte(out)); err != nil {
			t.Errorf("%s: the stripped module does not read back: %v", f, err)
		}
		clang := "clang-14"
		if strings.Contains(f, "clang16") {
			clang = "clang-16"
		}
		if _, err := exec.LookPath(clang); err != nil {
			continue
		}
		dir := t.TempDir()
		for _, c := range []struct {
			ll    string
			dwarf bool
		}{{string(data), true}, {out, false}} {
			ll := filepath.Join(dir, "m.ll")
			obj := filepath.Join(dir, "m.o")
			os.WriteFile(ll, []byte(c.ll), 0o644)
			if msg, err := exec.Command(clang, "-O2", "-c", "-x", "ir", ll, "-o", obj, "-Wno-override-module").CombinedOutput(); err != nil || len(msg) > 0 {
				t.Fatalf("%s: %s of the module (stripped: %v): %v\n%s", f, clang, !c.dwarf, err, msg)
			}
			ef, err := elf.Open(obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := ef.Section(".debug_info") != nil; got != c.dwarf {
				t.Errorf("%s: object of the module (stripped: %v) has .debug_info: %v", f, !c.dwarf, got)
			}
			ef.Close()
		}
	}
}

// TestStripDebugEdits checks that lines added by edits are stripped too, and that a
// reference from outside debug information to a debug-information node (here a
// !heapallocsite type) makes StripDebug refuse and leave the module whole.
func TestStripDebugEdits(t *testing.T) {
	src := `define i32 @f(i32 %x) !dbg !5 {
entry:
  call void @llvm.dbg.value(metadata i32 %x, metadata !9, metadata !DIExpression()), !dbg !8
  ret i32 %x, !dbg !8
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "t.c", directory: "/tmp")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 1, column: 3, scope: !5)
!9 = !DILocalVariable(name: "x", arg: 1, scope: !5, file: !1, line: 1, type: !10)
!10 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
`
	m, err := Parse("t.ll", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m.InsertBefore(m.Funcs[0].Blocks[0].Instrs[1].Line, "  %y = add i32 %x, 1, !dbg !8, !fragprof !11")
	m.Append("!11 = !{!\"kept\"}")
	if !m.StripDebug() {
		t.Fatal("StripDebug refused")
	}
	out := string(m.Bytes())
	checkStripped(t, "edited", out)
	for _, want := range []string{"define i32 @f(i32 %x) {", "  %y = add i32 %x, 1, !fragprof !11", `!11 = !{!"kept"}`, "!4 = !{i32 1, !\"wchar_size\", i32 4}", "!llvm.module.flags = !{!4}"} {
		if !strings.Contains(out, want) {
			t.Errorf("stripped module lacks %q:\n%s", want, out)
		}
	}

	m, _ = Parse("t.ll", []byte(src))
	m.InsertBefore(m.Funcs[0].Blocks[0].Instrs[1].Line, "  %p = call ptr @malloc(i64 4), !heapallocsite !10")
	if m.StripDebug() {
		t.Fatal("StripDebug stripped a type that !heapallocsite refers to")
	}
	if out := string(m.Bytes()); !strings.Contains(out, "!DIBasicType") || !strings.Contains(out, "!dbg !8") {
		t.Errorf("refused strip changed the module:\n%s", out)
	}
}
