//go:build integration

package sample

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"github.com/fragprof/fragprof/hotcfg"
)

// TestPreloadDecoder runs the in-process sampler's own x86-64 decoder (C, in the
// library: a wrong length would plant a breakpoint inside an instruction) over
// libc's whole .text, linearly, and compares every instruction with x/arch's x86asm:
// its length, and for control transfers their kind and static target. Instructions
// x86asm does not decode (VEX, EVEX, endbr64) are checked only through the sweep
// staying in step with the instructions after them.
func TestPreloadDecoder(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "decode")
	if b, err := exec.Command("gcc", "-O1", "-o", bin, "testdata/decode_main.c", "-ldl", "-lrt", "-pthread").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := elf.Open(libc)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section(".text")
	code, err := text.Data()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, libc, fmt.Sprint(text.Offset), fmt.Sprint(text.Size), fmt.Sprint(text.Addr)).Output()
	if err != nil {
		t.Fatalf("decoder: %v", err)
	}
	kinds := map[hotcfg.Kind]int{hotcfg.Other: 0, hotcfg.CondBranch: 1, hotcfg.Jump: 2, hotcfg.Call: 3, hotcfg.IndirectJump: 4, hotcfg.IndirectCall: 5, hotcfg.Return: 6}
	var n, compared, bad int
	s := bufio.NewScanner(bytes.NewReader(out))
	for s.Scan() {
		var addr, target uint64
		var length, kind int
		if _, err := fmt.Sscanf(s.Text(), "%x %d %d %x", &addr, &length, &kind, &target); err != nil {
			t.Fatalf("decoder output %q: %v", s.Text(), err)
		}
		n++
		src := code[addr-text.Addr:]
		if len(src) > 15 {
			src = src[:15]
		}
		if vexEncoded(src) {
			continue
		}
		inst, err := x86asm.Decode(src, 64)
		if err != nil || inst.Op == 0 || length == 0 {
			continue // data, padding, or what one of them does not decode (x86asm: endbr64)
		}
		compared++
		in, _ := decode(src, addr)
		want, ok := kinds[in.Kind]
		if inst.Len != length || kind != 7 && ok && kind != want || (want >= 1 && want <= 3 && kind == want && target != in.Target) {
			if bad < 10 {
				t.Errorf("%#x % x: C decoder len %d kind %d target %#x; x86asm len %d kind %v target %#x (%v)",
					addr, src[:inst.Len], length, kind, target, inst.Len, in.Kind, in.Target, inst)
			}
			bad++
		}
	}
	if compared < 100000 || bad > 0 {
		t.Errorf("%d instructions swept, %d compared, %d disagree", n, compared, bad)
	}
}
