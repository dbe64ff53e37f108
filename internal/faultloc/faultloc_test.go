//go:build integration

package faultloc

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLocate builds a position-independent program with clang and finds places in
// it as a run loaded at an arbitrary base would record them: inside a function (its
// source line, from DWARF), in the padding just past its end, and outside the binary.
func TestLocate(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "f.c")
	bin := filepath.Join(dir, "f")
	code := "int twice(int x) {\n\treturn 2 * x;\n}\nchar table[16];\nint main(int argc, char **argv) { return twice(argc) + table[argc]; }\n"
	if err := writeFile(src, code); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("clang", "-O1", "-g", "-fPIE", "-pie", src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var twice, table elf.Symbol
	for _, s := range syms {
		switch s.Name {
		case "twice":
			twice = s
		case "table":
			table = s
		}
	}
	if twice.Size == 0 {
		t.Fatal("no symbol twice")
	}
	const base = 0x555555554000 // where a PIE's ELF header is loaded (vaddr 0)
	loc, err := Locate(bin, base+twice.Value, base)
	if err != nil {
		t.Fatal(err)
	}
	if !loc.InBinary || loc.Func != "twice" || filepath.Base(loc.File) != "f.c" || loc.Line != 2 || loc.PastEnd {
		t.Errorf("twice's first instruction: %+v, want twice at f.c:2", loc)
	}
	end := base + twice.Value + twice.Size
	if loc, _ := Locate(bin, end, base); loc.Func == "twice" && !loc.PastEnd || loc.Func != "twice" && loc.Func != "main" {
		t.Errorf("the first byte past twice: %+v, want past the end of twice or in main", loc)
	}
	// An address in the padding after twice (clang aligns main to 16 bytes): twice's
	// size is 4 here, so twice+8 is padding unless main starts there.
	if twice.Size < 8 {
		if loc, _ := Locate(bin, base+twice.Value+8, base); loc.Func == "twice" && (!loc.PastEnd || loc.Line != 2) {
			t.Errorf("padding after twice: %+v, want past the end of twice, whose last line is 2", loc)
		}
	}
	if loc, _ := Locate(bin, 0x7ffff7a00000, base); loc.InBinary || loc.Func != "" {
		t.Errorf("an address in a library: %+v, want outside the binary", loc)
	}

	d := Describe(bin, syscall.SIGSEGV, Fault{PC: base + twice.Value, Addr: 0, Base: base, Code: 1})
	if !strings.Contains(d, "in twice (f.c:2): an access to address 0x0, a null pointer") {
		t.Errorf("Describe: %s", d)
	}
	d = Describe(bin, syscall.SIGSEGV, Fault{PC: 0, Addr: 0, Base: base, Code: 1})
	if !strings.Contains(d, "outside the program's code: it jumped to address 0x0") {
		t.Errorf("Describe of a jump to 0: %s", d)
	}
	d = Describe(bin, syscall.SIGSEGV, Fault{PC: base + twice.Value, Addr: 0x7ffc0000fff8, SP: 0x7ffc00010000, Base: base, Code: 1})
	if !strings.Contains(d, "a stack overflow") {
		t.Errorf("Describe of an access below the stack pointer: %s", d)
	}
	d = Describe(bin, syscall.SIGSEGV, Fault{PC: base + twice.Value, Addr: base + table.Value + 0x20, Base: base, Code: 1})
	if !strings.HasSuffix(d, "an access to table+0x20, past the end of table (16 bytes)") {
		t.Errorf("Describe of an access past an array: %s", d)
	}
	d = Describe(bin, syscall.SIGFPE, Fault{PC: base + twice.Value, Base: base, Code: 1})
	if !strings.HasSuffix(d, "an integer division by zero") {
		t.Errorf("Describe of FPE_INTDIV: %s", d)
	}
}

func writeFile(name, s string) error { return os.WriteFile(name, []byte(s), 0o644) }
