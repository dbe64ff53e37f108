//go:build integration

package build

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCCDebugInfo checks that fragprof cc's object carries DWARF exactly when the
// user asked for it, as clang's does, with every installed clang: the IR fragprof
// reads has clang's -g information, which the back end must not be made to carry
// when it was not asked for. The program linked from the stripped object
// must still run and print what it prints.
func TestCCDebugInfo(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ptr.c")
	if err := os.WriteFile(src, []byte(ptrC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, clang := range []string{"clang-14", "clang-16", "clang-19"} {
		path, err := exec.LookPath(clang)
		if err != nil {
			t.Fatalf("%s: %v (scripts/deps.sh installs it)", clang, err)
		}
		tc, err := NewToolchain(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			flags []string
			dwarf bool
		}{{[]string{"-O2"}, false}, {[]string{"-O0"}, false}, {[]string{"-O2", "-g"}, true}, {[]string{"-O2", "-g", "-g0"}, false}} {
			obj := filepath.Join(dir, "ptr.o")
			var msg bytes.Buffer
			if err := tc.CC(context.Background(), append(append([]string{"-c"}, c.flags...), src, "-o", obj), &msg); err != nil || msg.Len() > 0 {
				t.Fatalf("%s %q: %v\n%s", clang, c.flags, err, msg.String())
			}
			ef, err := elf.Open(obj)
			if err != nil {
				t.Fatal(err)
			}
			has := ef.Section(".debug_info") != nil
			ef.Close()
			if has != c.dwarf {
				t.Errorf("%s %q: object has .debug_info: %v, want %v", clang, c.flags, has, c.dwarf)
			}
			exe := filepath.Join(dir, "ptr")
			if err := tc.CC(context.Background(), []string{obj, "-o", exe}, &msg); err != nil {
				t.Fatalf("%s: link: %v\n%s", clang, err, msg.String())
			}
			out, err := exec.Command(exe).Output()
			if err != nil || !strings.HasPrefix(string(out), "Bad ptr map entry") {
				t.Errorf("%s %q: the program printed %q (%v)", clang, c.flags, out, err)
			}
		}
	}
}

// TestCCKeep: with FRAGPROF_KEEP set, fragprof cc keeps its intermediate IR (clang's
// and the instrumented) and says where; without it, it says nothing.
func TestCCKeep(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ptr.c")
	if err := os.WriteFile(src, []byte(ptrC), 0o644); err != nil {
		t.Fatal(err)
	}
	tc, err := FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	t.Setenv("FRAGPROF_KEEP", "1")
	var msg bytes.Buffer
	if err := tc.CC(context.Background(), []string{"-c", "-O2", src, "-o", filepath.Join(dir, "ptr.o")}, &msg); err != nil {
		t.Fatalf("%v\n%s", err, msg.String())
	}
	kept, ok := strings.CutPrefix(strings.TrimSpace(msg.String()), "fragprof cc: intermediate files kept in ")
	if !ok || !strings.HasPrefix(kept, dir) {
		t.Fatalf("message %q, want the kept directory under %s", msg.String(), dir)
	}
	for _, name := range []string{"0-ptr.ll", "0-ptr.fp.ll"} {
		if _, err := os.Stat(filepath.Join(kept, name)); err != nil {
			t.Errorf("kept IR: %v", err)
		}
	}
	t.Setenv("FRAGPROF_KEEP", "")
	msg.Reset()
	if err := tc.CC(context.Background(), []string{"-c", "-O2", src, "-o", filepath.Join(dir, "ptr.o")}, &msg); err != nil || msg.Len() > 0 {
		t.Fatalf("without FRAGPROF_KEEP: %v, message %q", err, msg.String())
	}
}
