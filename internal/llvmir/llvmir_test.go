package llvmir

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func testFiles(t testing.TB) []string {
	files, err := filepath.Glob("testdata/*.ll")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	return files
}

// TestRoundTrip checks that an unmodified module is written back byte for byte.
func TestRoundTrip(t *testing.T) {
	for _, f := range testFiles(t) {
		data, _ := os.ReadFile(f)
		m, err := Parse(f, data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got := m.Bytes(); !bytes.Equal(got, data) {
			t.Errorf("%s: round trip differs", f)
		}
	}
}

// TestCFGGolden compares the CFG of every function with testdata/NAME.cfg.
func TestCFGGolden(t *testing.T) {
	for _, f := range testFiles(t) {
		data, _ := os.ReadFile(f)
		m, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		for _, fn := range m.Funcs {
			g := m.CFG(fn)
			if err := g.Check(); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			sb.WriteString(g.String())
		}
		golden := strings.TrimSuffix(f, ".ll") + ".cfg"
		if *update {
			os.WriteFile(golden, []byte(sb.String()), 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if sb.String() != string(want) {
			t.Errorf("%s: CFG differs from %s:\n%s", f, golden, sb.String())
		}
	}
}

// TestBothClangsAgree checks that clang 14 (typed pointers) and clang 16 (opaque
// pointers) give the same CFG shape for the same source, named or numbered.
func TestBothClangsAgree(t *testing.T) {
	for _, name := range []string{"switch", "gotos", "branches", "recursion-numbered"} {
		var shapes [2]string
		for i, v := range []string{"14", "16"} {
			f := "testdata/" + name + ".clang" + v + ".ll"
			data, _ := os.ReadFile(f)
			m, err := Parse(f, data)
			if err != nil {
				t.Fatal(err)
			}
			if m.Opaque != (v == "16") {
				t.Errorf("%s: Opaque = %v", f, m.Opaque)
			}
			for _, fn := range m.Funcs {
				g := m.CFG(fn)
				shapes[i] += fn.Name + ":"
				for _, e := range g.Edges {
					shapes[i] += e.Kind.String() + e.Case + ","
				}
				shapes[i] += "\n"
			}
		}
		if shapes[0] != shapes[1] {
			t.Errorf("%s: clang 14 and 16 disagree:\n%s\n%s", name, shapes[0], shapes[1])
		}
	}
}

func TestLocations(t *testing.T) {
	data, _ := os.ReadFile("testdata/switch.clang16.ll")
	m, err := Parse("switch", data)
	if err != nil {
		t.Fatal(err)
	}
	var classify *Func
	for _, f := range m.Funcs {
		if f.Name == "classify" {
			classify = f
		}
	}
	if classify == nil {
		t.Fatal("no classify")
	}
	name, loc, ok := m.Subprogram(classify.Dbg)
	if !ok || name != "classify" || loc.Line != 4 || loc.File != "examples/switch.c" {
		t.Errorf("Subprogram = %q %+v %v, want classify at examples/switch.c:4", name, loc, ok)
	}
	g := m.CFG(classify)
	for _, b := range g.Blocks {
		if b.Label == "sw.bb" && (b.Start.Line != 8 || b.Start.File != "examples/switch.c") {
			t.Errorf("sw.bb starts at %v, want examples/switch.c:8", b.Start)
		}
	}
}

// TestErrors checks that IR the reader does not understand is refused with the place.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, ir, want string }{
		{"no terminator", "define void @f() {\nentry:\n  %x = add i32 1, 2\n}\n", "x.ll:4: in function @f: block entry has no terminator"},
		{"stray text", "define void @f() {\nentry:\n  ret void\nwhat is this\n}\n", "x.ll:4: in function @f: unexpected text in a function body"},
		{"unknown label", "define void @f() {\nentry:\n  br label %nowhere\n}\n", "x.ll:3: in function @f: branch to unknown block %nowhere"},
		{"invoke without unwind", "define void @f() personality ptr null {\nentry:\n  invoke void @g() to label %a\na:\n  ret void\n}\n", "x.ll:3: in function @f: invoke without a normal and an unwind label"},
		{"unclosed", "define void @f() {\nentry:\n  ret void\n", "x.ll:1: in function @f: function body is not closed"},
		{"unclosed switch", "define void @f(i32 %x) {\nentry:\n  switch i32 %x, label %a [\n    i32 1, label %a\n", "switch is not closed"},
		{"duplicate label", "define void @f() {\na:\n  br label %a\na:\n  ret void\n}\n", "duplicate block label a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.ll", []byte(tc.ir))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseTerminators(t *testing.T) {
	ir := `define void @f(i32 %x, ptr %p) {
entry:
  switch i32 %x, label %d [
    i32 -1, label %a
    i32 7, label %"quoted name"
    i32 8, label %a
  ]
a:
  indirectbr ptr %p, [label %d, label %"quoted name"]
"quoted name":
  br i1 true, label %d, label %a
d:
  unreachable, !dbg !5
}
`
	m, err := Parse("t.ll", []byte(ir))
	if err != nil {
		t.Fatal(err)
	}
	g := m.CFG(m.Funcs[0])
	var got []string
	for _, e := range g.Edges {
		got = append(got, e.String())
	}
	want := []string{
		"entry → d (default)", "entry → a (case -1)", "entry → quoted name (case 7)", "entry → a (case 8)",
		"a → d (indirect)", "a → quoted name (indirect)",
		"quoted name → d (true)", "quoted name → a (false)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := m.Funcs[0].Blocks[3].Term(); d.Op != "unreachable" || d.Dbg != 5 {
		t.Errorf("unreachable parsed as %+v", d)
	}
}

func TestEdits(t *testing.T) {
	ir := "a\nb\nc"
	m, err := Parse("t.ll", []byte(ir))
	if err != nil {
		t.Fatal(err)
	}
	m.InsertBefore(1, "before b")
	m.InsertAfter(1, "after b")
	m.Replace(2, "C")
	m.Replace(2, "CC")
	m.Append("end")
	want := "a\nbefore b\nb\nafter b\nCC\nend\n"
	if got := string(m.Bytes()); got != want {
		t.Errorf("edits gave %q, want %q", got, want)
	}
}

func TestRetargetTerm(t *testing.T) {
	lines := []string{"  switch i32 %x, label %d [", "    i32 1, label %a", "    i32 2, label %a", "  ], !dbg !3"}
	got := RetargetTerm(lines, map[int]string{2: "new.e", 0: "x y"})
	want := []string{`  switch i32 %x, label %"x y" [`, "    i32 1, label %a", "    i32 2, label %new.e", "  ], !dbg !3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzParse checks that the reader never panics and that whatever it accepts it
// writes back unchanged.
func FuzzParse(f *testing.F) {
	for _, file := range testFiles(f) {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte("define void @f() {\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.ll", data)
		if err != nil {
			return
		}
		if !bytes.Equal(m.Bytes(), data) {
			t.Errorf("round trip differs")
		}
		for _, fn := range m.Funcs {
			m.CFG(fn)
		}
	})
}

// TestEHParse reads an invoke and a landingpad whose operands continue on indented
// lines, as clang prints them, and resume.
func TestEHParse(t *testing.T) {
	ir := `define i32 @f(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke i32 @g(i32 %x)
          to label %ok unwind label %lpad, !dbg !7
ok:
  ret i32 %r
lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
          catch ptr @_ZTIi, !dbg !8
  resume { ptr, i32 } %lp
}
`
	m, err := Parse("x.ll", []byte(ir))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	inv := f.Blocks[0].Term()
	if inv.Op != "invoke" || inv.Callee != "g" || inv.EndLine != inv.Line+1 || inv.Dbg != 7 {
		t.Errorf("invoke read as %+v", inv)
	}
	if len(inv.Targets) != 2 || inv.Targets[0] != (Target{Label: "ok", Kind: Uncond}) || inv.Targets[1] != (Target{Label: "lpad", Kind: Unwind}) {
		t.Errorf("invoke targets %+v", inv.Targets)
	}
	lp := f.Blocks[2]
	if lp.EHPad() != "landingpad" || lp.Instrs[0].EndLine != lp.Instrs[0].Line+2 || lp.Instrs[0].Dbg != 8 {
		t.Errorf("landing pad read as %+v, pad %q", lp.Instrs[0], lp.EHPad())
	}
	if at, ok := lp.InsertionPoint(); !ok || at != lp.Instrs[1].Line {
		t.Errorf("insertion point %d %v, want after the landingpad (line %d)", at, ok, lp.Instrs[1].Line)
	}
	if lp.Term().Op != "resume" || len(lp.Term().Targets) != 0 {
		t.Errorf("resume read as %+v", lp.Term())
	}
	g := m.CFG(f)
	if len(g.Edges) != 2 || g.Edges[1].Kind != cfg.Unwind || g.Blocks[0].Traits&cfg.MayNotReturn == 0 {
		t.Errorf("CFG edges %v, entry traits %v: want an unwind edge and an invoke that may not return", g.Edges, g.Blocks[0].Traits)
	}
}

// TestCalls: a block's calls are its direct callees in order, one per call or invoke
// (tail calls too); indirect calls, inline assembly and intrinsics are left out.
func TestCalls(t *testing.T) {
	ir := `define void @g(i32 %x) {
entry:
  ret void
}

define void @f(ptr %fp) personality ptr @__gxx_personality_v0 {
entry:
  call void @llvm.memset.p0.i64(ptr @buf, i8 0, i64 4, i1 false)
  call void @g(i32 1)
  call void %fp(ptr @g)
  call void asm sideeffect "call @h(%rip)", "~{dirflag}"()
  %r = tail call i32 @"quoted name"(ptr @buf)
  call void @g(i32 2)
  invoke void @_Z1hv()
          to label %ok unwind label %lp
ok:
  ret void
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}
`
	m, err := Parse("x.ll", []byte(ir))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, f := range m.Funcs {
		for _, b := range m.CFG(f).Blocks {
			got = append(got, b.Calls)
		}
	}
	want := [][]string{nil, {"g", "quoted name", "g", "_Z1hv"}, nil, nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
}
