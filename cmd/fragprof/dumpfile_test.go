//go:build integration

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/profile"
)

// TestDumpFileInPlace: FRAGPROF_OUT names a dump file of two slots, and a run writes
// its dump into the free one and then switches the header's state word to it, in
// place (docs/runtime.md, "Dump file"): the file keeps its inode from run to run. A
// free slot filled with garbage (a writer killed in the middle) leaves the dump
// readable; a damaged header, or a dump that outgrows its slot (another program's, or
// the same run's after an exec), gets a new file put in the file's place. Before, every run wrote PATH.PID.tmp and renamed it over PATH
// (most of the 157 us a 0.6 ms run of newton cost more than its plain build).
func TestDumpFileInPlace(t *testing.T) {
	dir := t.TempDir()
	// build builds a program that calls work 5 times and funcs more functions once,
	// then execs then, if not empty.
	build := func(name string, funcs int, then string) string {
		var src strings.Builder
		src.WriteString("#include <unistd.h>\n")
		for i := 0; i < funcs; i++ {
			fmt.Fprintf(&src, "int f%d(int x) { return x > %d ? x - %d : x + 1; }\n", i, i, i)
		}
		src.WriteString("static int work(int i) { return i * 3 + 1; }\nint main(void) {\n\tint s = 0;\n\tfor (int i = 0; i < 5; i++)\n\t\ts += work(i);\n")
		for i := 0; i < funcs; i++ {
			fmt.Fprintf(&src, "\ts += f%d(s & 7);\n", i)
		}
		if then != "" {
			fmt.Fprintf(&src, "\tchar *argv[] = {%q, 0};\n\texecv(argv[0], argv);\n", then)
		}
		src.WriteString("\treturn s < 35;\n}\n")
		c := filepath.Join(dir, name+".c")
		if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, name)
		if _, stderr, code := cli(t, "", "cc", c, "-o", bin); code != 0 {
			t.Fatalf("cc: exit %d\n%s", code, stderr)
		}
		return bin
	}
	small, large := build("small", 0, ""), build("large", 60, "")
	out := filepath.Join(dir, "counts.fpd")
	run := func(bin string) {
		t.Helper()
		cmd := osexec.Command(bin)
		cmd.Env = append(os.Environ(), "FRAGPROF_OUT="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, b)
		}
	}
	inode := func() uint64 {
		t.Helper()
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Ino
	}
	le := binary.LittleEndian
	header := func() (slot, length, slotCap uint64) {
		t.Helper()
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(data[:8]) != dump.FileMagic {
			t.Fatalf("%s starts with %q, want a dump file (%q)", out, data[:8], dump.FileMagic)
		}
		st := le.Uint64(data[8:])
		return st & 1, st >> 1, le.Uint64(data[16:])
	}
	// check reads the dump as count does and wants funcs functions besides main and
	// work, and work called 5 times: one run's counts, not the sum of several.
	check := func(funcs int) {
		t.Helper()
		p := readDumpProfile(t, out)
		if work, _ := callsOf(p, "work"); work != 5 || len(p.Program.Funcs) != funcs+2 {
			t.Fatalf("work called %d times in %d functions, want 5 in %d", work, len(p.Program.Funcs), funcs+2)
		}
	}

	run(small)
	first := inode()
	slot, length, slotCap := header()
	if slot != 0 || length == 0 || length > slotCap {
		t.Fatalf("a new dump file: slot %d, dump of %d bytes in slots of %d; want slot 0", slot, length, slotCap)
	}
	check(0)
	for i := 1; i <= 2; i++ {
		run(small)
		if s, _, _ := header(); s != uint64(i%2) {
			t.Fatalf("run %d: the dump is in slot %d, want %d (runs alternate)", i+1, s, i%2)
		}
		if inode() != first {
			t.Fatalf("run %d replaced the file rather than writing in place", i+1)
		}
		check(0)
	}

	// Garbage in the free slot: the dump is intact, and the next run writes over it.
	f, err := os.OpenFile(out, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	slot, _, slotCap = header()
	garbage := []byte(strings.Repeat("\xa5", int(slotCap)))
	if _, err := f.WriteAt(garbage, int64(64+(1-slot)*slotCap)); err != nil {
		t.Fatal(err)
	}
	check(0)
	run(small)
	check(0)
	if inode() != first {
		t.Fatal("the run after a damaged free slot replaced the file")
	}

	// A damaged header: the reader says so, and the next run replaces the file.
	var bad [8]byte
	le.PutUint64(bad[:], (slotCap+1)<<1)
	if _, err := f.WriteAt(bad[:], 8); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if data, err := dump.ReadFile(out); err != nil {
		t.Fatal(err)
	} else if _, err := dump.Parse(out, data); err == nil || !strings.Contains(err.Error(), "not a valid fragprof dump file") {
		t.Fatalf("a header claiming a dump larger than its slot: error %v", err)
	}
	run(small)
	check(0)
	second := inode()
	if second == first {
		t.Fatal("a damaged dump file was written in place")
	}

	// A dump too large for the slots: a new file, with larger slots.
	_, _, smallCap := header()
	run(large)
	check(60)
	if _, length, slotCap := header(); length <= smallCap || inode() == second {
		t.Fatalf("a dump of %d bytes, larger than the slots of %d, was not given a new file (slots now %d)", length, smallCap, slotCap)
	}
	// One run outgrowing its slots: small execs large, which adds its units to the
	// dump of the same run; the sum goes to a new file.
	os.Remove(out)
	run(build("execs", 0, large))
	p := readDumpProfile(t, out)
	work := uint64(0)
	for i, f := range p.Program.Funcs {
		if f.Name == "work" {
			work += p.Counts[i].Calls()
		}
	}
	if work != 10 || len(p.Program.Funcs) != 64 {
		t.Errorf("a run that execs: work called %d times in %d functions, want 10 in 64 (both programs' units)", work, len(p.Program.Funcs))
	}
	if _, length, _ := header(); length <= smallCap {
		t.Errorf("a run that execs: a dump of %d bytes, which the small program's slots (%d) hold: the test did not outgrow them", length, smallCap)
	}
	if left, _ := filepath.Glob(out + ".*"); len(left) > 0 {
		t.Errorf("files left beside the dump: %v", left)
	}

	// A run whose second process finds the run's dump in slot 1, beyond the bytes
	// the runtime reads first (the file's header and the first 32 bytes of the dump
	// in slot 0): it reads the dump there, adds to it and writes slot 0, in place.
	run(small)
	if s, _, _ := header(); s != 0 {
		run(small)
	}
	if s, _, _ := header(); s != 0 {
		t.Fatal("two runs left the dump in slot 1 both times")
	}
	third := inode()
	run(build("execs-small", 0, small))
	p = readDumpProfile(t, out)
	work = 0
	for i, f := range p.Program.Funcs {
		if f.Name == "work" {
			work += p.Counts[i].Calls()
		}
	}
	if work != 10 || len(p.Program.Funcs) != 4 {
		t.Errorf("a run of two processes: work called %d times in %d functions, want 10 in 4", work, len(p.Program.Funcs))
	}
	if s, _, _ := header(); s != 0 || inode() != third {
		t.Errorf("a run of two processes: the dump is in slot %d of inode %d, want slot 0 of %d (in place)", s, inode(), third)
	}

	// A path longer than the runtime keeps among its small variables (255 bytes).
	long := filepath.Join(dir, strings.Repeat("d", 200), strings.Repeat("e", 100))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(long, "counts.fpd")
	run(small)
	run(small)
	check(0)
}

// readDumpProfile reads the dump file path as count does (dump.ReadFile) and returns
// its profile.
func readDumpProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	data, err := dump.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return dumpProfile(t, path, data)
}

// dumpProfile returns the profile of the dump data (name in errors).
func dumpProfile(t *testing.T, name string, data []byte) *profile.Profile {
	t.Helper()
	d, err := dump.Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// callsOf returns how many times p's function name was called, and whether p has it.
func callsOf(p *profile.Profile, name string) (uint64, bool) {
	for i, f := range p.Program.Funcs {
		if f.Name == name {
			return p.Counts[i].Calls(), true
		}
	}
	return 0, false
}
