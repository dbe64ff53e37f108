//go:build integration

package sample

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
)

// mapAt maps the executable segment of the ELF file at path at base, as the loader
// would, and returns the mapping and the run-time address of the symbol named sym
// (searched in the file's debug file as well).
func mapAt(t *testing.T, path string, base uint64, symFile, sym string) (hotcfg.Maps, uint64) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var maps hotcfg.Maps
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			maps.Add(hotcfg.Mapping{Start: base + p.Vaddr&^0xfff, End: base + p.Vaddr + p.Memsz, Offset: p.Off &^ 0xfff, Path: path})
		}
	}
	sf, err := elf.Open(symFile)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	syms, _ := sf.Symbols()
	for _, s := range syms {
		if s.Name == sym && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			return maps, base + s.Value
		}
	}
	t.Fatalf("%s: no symbol %s", symFile, sym)
	return nil, 0
}

// TestSeparateDebugFiles strips a program, puts its symbols and DWARF in a separate
// file found by .gnu_debuglink (next to it) or by build ID (under a debug
// directory), and checks that its functions and lines are found; without the debug
// file, only what .dynsym exports is named. On a Debian system with libc6-dbg,
// libc's internal functions are named from /usr/lib/debug/.build-id.
func TestSeparateDebugFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	os.WriteFile(src, []byte("int hidden(int x) { return x * 3 + 1; }\nint main(int c, char **v) { (void)v; return hidden(c); }\n"), 0o644)
	prog, dbg := filepath.Join(dir, "p"), filepath.Join(dir, "p.debug")
	for _, cmd := range [][]string{
		{"gcc", "-O1", "-g", "-Wl,--build-id", "-o", prog, src},
		{"objcopy", "--only-keep-debug", prog, dbg},
		{"strip", "--strip-all", prog},
		{"objcopy", "--add-gnu-debuglink=" + dbg, prog},
	} {
		if b, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, b)
		}
	}
	maps, addr := mapAt(t, prog, 0x555555554000, dbg, "hidden")
	s := NewFiles(maps).Symbolize(addr)
	if s.Func != "hidden" || s.Line != 1 || !strings.HasSuffix(s.File, "p.c") {
		t.Errorf("by .gnu_debuglink: %+v", s)
	}
	// By build ID, the debug file elsewhere.
	f, _ := elf.Open(prog)
	id := buildID(f)
	f.Close()
	if len(id) < 8 {
		t.Fatalf("no build ID in %s", prog)
	}
	debugDir := filepath.Join(dir, "debug")
	os.MkdirAll(filepath.Join(debugDir, ".build-id", id[:2]), 0o755)
	if err := os.Rename(dbg, filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug")); err != nil {
		t.Fatal(err)
	}
	old := DebugDirs
	DebugDirs = []string{debugDir}
	s = NewFiles(maps).Symbolize(addr)
	if s.Func != "hidden" || s.Line != 1 {
		t.Errorf("by build ID: %+v", s)
	}
	DebugDirs = []string{filepath.Join(dir, "none")}
	if s = NewFiles(maps).Symbolize(addr); s.Func != "" || s.Module != "p" {
		t.Errorf("without debug file: %+v (want no function, module p)", s)
	}
	DebugDirs = old

	// libc: a function .dynsym does not export, named by libc6-dbg.
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	lf, err := elf.Open(libc)
	if err != nil {
		t.Fatal(err)
	}
	d := debugFile(lf, libc)
	lf.Close()
	if d == nil {
		t.Fatalf("no debug file for %s: is libc6-dbg installed (scripts/deps.sh)?", libc)
	}
	syms, _ := d.Symbols()
	d.Close()
	var local string
	for _, sy := range syms {
		if elf.ST_TYPE(sy.Info) == elf.STT_FUNC && elf.ST_BIND(sy.Info) == elf.STB_LOCAL && sy.Size > 16 {
			local = sy.Name
			break
		}
	}
	lf, _ = elf.Open(libc)
	lid := buildID(lf)
	lf.Close()
	lmaps, laddr := mapAt(t, libc, 0x7ffff7c00000, filepath.Join("/usr/lib/debug/.build-id", lid[:2], lid[2:]+".debug"), local)
	if s := NewFiles(lmaps).Symbolize(laddr + 4); s.Func != local || s.Line == 0 {
		t.Errorf("libc internal function %s: %+v", local, s)
	}
}
