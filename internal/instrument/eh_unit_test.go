package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// TestFuncletIR reads the funclet-based exception handling of the Windows ABI
// (catchswitch, catchpad, catchret, cleanuppad, cleanupret): the CFG has its edges,
// and instrumenting either gives IR that clang accepts or names the function and the
// block whose counter cannot be placed.
func TestFuncletIR(t *testing.T) {
	data, err := os.ReadFile("testdata/eh-msvc.ll")
	if err != nil {
		t.Fatal(err)
	}
	m, err := llvmir.Parse("eh-msvc.ll", data)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			ops[b.Term().Op] = true
		}
		if err := m.CFG(f).Check(); err != nil {
			t.Fatal(err)
		}
	}
	for _, op := range []string{"catchswitch", "catchret", "cleanupret", "invoke"} {
		if !ops[op] {
			t.Errorf("no %s read (read: %v)", op, ops)
		}
	}
	for _, s := range []Scheme{Chords, Edges, Blocks} {
		m, _ := llvmir.Parse("eh-msvc.ll", data)
		_, err := Module(m, Options{Scheme: s, Source: "eh.cpp"})
		if err != nil {
			if !strings.Contains(err.Error(), "fragprof cannot place") || !strings.Contains(err.Error(), "in function @") {
				t.Errorf("%s: %v: want an error naming the function and the block", s, err)
			}
			continue
		}
		out := filepath.Join(t.TempDir(), "x.ll")
		os.WriteFile(out, m.Bytes(), 0o644)
		if msg, err := exec.Command("clang-14", "--target=x86_64-pc-windows-msvc", "-c", "-O2", "-x", "ir", out, "-o", out+".o").CombinedOutput(); err != nil {
			t.Errorf("%s: clang rejects the instrumented funclet IR: %v\n%s", s, err, msg)
		}
	}
}
