//go:build integration

package instrument

// The IR of testdata/eh.cpp was made with
//
//	F="-O2 -Xclang -disable-llvm-passes -g -S -emit-llvm -fno-discard-value-names"
//	clang++ $F eh.cpp -o eh14.ll
//	clang++-19 $F eh.cpp -o eh19.ll
//	clang++ --target=x86_64-pc-windows-msvc $F eh.cpp -o eh-msvc.ll
//
// and the directory names taken out.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// TestEHIR reads clang++'s exception handling (invoke, multi-line landingpad,
// resume, callbr) from clang 14 and clang 19, instruments it under every scheme and
// has the matching clang compile the result, which runs LLVM's verifier: counters on
// unwind edges sit after the landingpad, or in cloned landing pads when several
// invokes share one.
func TestEHIR(t *testing.T) {
	for _, c := range []struct{ file, clang string }{{"testdata/eh14.ll", "clang-14"}, {"testdata/eh19.ll", "clang-19"}} {
		if _, err := exec.LookPath(c.clang); err != nil {
			t.Fatalf("%s is needed (scripts/deps.sh): %v", c.clang, err)
		}
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := llvmir.Parse(c.file, data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.Bytes(), data) {
			t.Fatalf("%s: the unedited module does not round-trip", c.file)
		}
		kinds := map[string]int{}
		for _, f := range m.Funcs {
			for _, b := range f.Blocks {
				t := b.Term()
				kinds[t.Op]++
				if b.EHPad() == "landingpad" {
					lp := b.Instrs[b.FirstNonPhi()]
					if lp.EndLine == lp.Line && !strings.Contains(m.Lines[lp.Line], "cleanup") && !strings.Contains(m.Lines[lp.Line], "catch") {
						kinds["one-line landingpad without clauses"]++
					}
					kinds["landingpad"]++
				}
			}
			g := m.CFG(f)
			if err := g.Check(); err != nil {
				t.Fatal(err)
			}
			for _, e := range g.Edges {
				if e.Kind == cfg.Unwind && f.Blocks[e.To.ID].EHPad() != "landingpad" {
					t.Errorf("%s: %s: unwind edge %v into a block that is no landing pad", c.file, f.Name, e)
				}
			}
		}
		for _, op := range []string{"invoke", "resume", "callbr", "landingpad"} {
			if kinds[op] == 0 {
				t.Errorf("%s: no %s read (read: %v)", c.file, op, kinds)
			}
		}
		if kinds["one-line landingpad without clauses"] > 0 {
			t.Errorf("%s: landingpad clauses on the following lines were not joined", c.file)
		}
		cloned := false
		for _, s := range []Scheme{Chords, Edges, Blocks} {
			m, _ := llvmir.Parse(c.file, data)
			if _, err := Module(m, Options{Scheme: s, Source: "eh.cpp"}); err != nil {
				t.Fatalf("%s, %s: %v", c.file, s, err)
			}
			out := filepath.Join(t.TempDir(), "x.ll")
			os.WriteFile(out, m.Bytes(), 0o644)
			cloned = cloned || bytes.Contains(m.Bytes(), []byte("__fp.lp"))
			if msg, err := exec.Command(c.clang, "-c", "-O2", "-x", "ir", out, "-o", out+".o").CombinedOutput(); err != nil {
				t.Errorf("%s (%s): %s rejects the instrumented IR: %v\n%s", c.file, s, c.clang, err, msg)
			}
		}
		if !cloned {
			t.Errorf("%s: no scheme counted an unwind edge into a shared landing pad", c.file)
		}
	}
}
