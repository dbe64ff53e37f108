//go:build integration

package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// TestInstrumentedIRCompiles instruments IR from clang 14 and clang 16 under every
// scheme, atomic or not, and has the matching clang compile it. The IR is clang's
// of examples/branches.c (named blocks, loops) and examples/recursion.c (numbered
// blocks, a switch, recursive calls): testdata/*.clang14.ll and *.clang16.ll.
func TestInstrumentedIRCompiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.clang1[46].ll")
	if len(files) == 0 {
		t.Fatal("no IR testdata")
	}
	for _, file := range files {
		clang := "clang-14"
		if strings.Contains(file, "clang16") {
			clang = "clang-16"
		}
		if _, err := exec.LookPath(clang); err != nil {
			t.Fatalf("%s is needed (apt-get install %s): %v", clang, clang, err)
		}
		for _, s := range []Scheme{Blocks, Edges} {
			for _, atomic := range []bool{false, true} {
				data, _ := os.ReadFile(file)
				m, err := llvmir.Parse(file, data)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Module(m, Options{Scheme: s, Atomic: atomic, Source: file}); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(t.TempDir(), "x.ll")
				os.WriteFile(out, m.Bytes(), 0o644)
				cmd := exec.Command(clang, "-c", "-O2", "-x", "ir", out, "-o", out+".o")
				if msg, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s (%s, atomic=%v): %s rejects the instrumented IR: %v\n%s", file, s, atomic, clang, err, msg)
				}
				if s == Blocks && !atomic {
					// Chords at -O0, with the stack walk's table (walk.go): blockaddress
					// of numbered and named blocks, in both pointer dialects.
					m, _ := llvmir.Parse(file, data)
					if !m.WalkableStack() {
						t.Errorf("%s: the stack walk refuses it", file)
					}
					if _, err := Module(m, Options{Scheme: Chords, Walk: true, Source: file}); err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(string(m.Bytes()), "@__fragprof.walk = private constant") {
						t.Errorf("%s: no walk table", file)
					}
					os.WriteFile(out, m.Bytes(), 0o644)
					if msg, err := exec.Command(clang, "-c", "-O0", "-x", "ir", out, "-o", out+".o").CombinedOutput(); err != nil {
						t.Errorf("%s (chords, walk): %s rejects the instrumented IR: %v\n%s", file, clang, err, msg)
					}
				}
				// Instrumenting twice is refused.
				m2, _ := llvmir.Parse(out, m.Bytes())
				if _, err := Module(m2, Options{Scheme: s}); err == nil || !strings.Contains(err.Error(), "already instrumented") {
					t.Errorf("second instrumentation: %v", err)
				}
			}
		}
	}
}
