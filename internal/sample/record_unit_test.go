package sample

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
)

// rawSamplerFile builds a sampler's file as the library writes it: the header
// (started, the mappings' cost) and one chunk of process pid, thread tid, that
// holds a mappings record (maps) and one burst of pcs at time ns.
func rawSamplerFile(pid, tid uint32, maps string, ns uint64, pcs []uint64) []byte {
	le := binary.LittleEndian
	data := make([]byte, fpsHeader+fpsChunk)
	le.PutUint64(data[0:], fpsMagic)
	le.PutUint64(data[8:], fpsSize)
	le.PutUint64(data[16:], fpsHeader+fpsChunk)
	le.PutUint64(data[24:], fpsChunk)
	le.PutUint64(data[56:], 1)     // started
	le.PutUint64(data[64:], 70000) // the mappings' cost, ns
	c := data[fpsHeader:]
	le.PutUint32(c, pid)
	le.PutUint32(c[4:], tid)
	recs := c[16:]
	p := 0
	rec := func(typ uint32, body []byte) {
		n := 8 + (len(body)+7)&^7
		le.PutUint32(recs[p:], typ)
		le.PutUint32(recs[p+4:], uint32(n))
		copy(recs[p+8:], body)
		p += n
	}
	rec(recMaps, []byte(maps))
	burst := make([]byte, 40+8*len(pcs))
	le.PutUint64(burst, ns)
	le.PutUint64(burst[8:], 150000) // the burst's cost, ns
	le.PutUint32(burst[16:], uint32(len(pcs)))
	for i, pc := range pcs {
		le.PutUint64(burst[40+8*i:], pc)
	}
	rec(recBurst, burst)
	le.PutUint32(c[8:], uint32(p))
	return data
}

// TestDecodeRecord decodes a record built by hand — a mapping of a file of three
// instructions (nop, nop, ret) and one burst over them — into the batches file
// that sampling writes directly, and checks what a malformed record is told.
func TestDecodeRecord(t *testing.T) {
	dir := t.TempDir()
	code := filepath.Join(dir, "code.bin")
	if err := os.WriteFile(code, []byte{0x90, 0x90, 0xc3}, 0o644); err != nil {
		t.Fatal(err)
	}
	raw := rawSamplerFile(42, 43, fmt.Sprintf("400000-401000 r-xp 00000000 00:00 0 %s\n", code), 3000, []uint64{0x400000, 0x400001, 0x400002})
	rec := fmt.Sprintf("%s\ninfo cmd ./code a b\ninfo burst 3\nraw %d\n%s\ninfo batches 1\ninfo runs 1\n", RecordMagic, len(raw), raw)
	var out bytes.Buffer
	if err := DecodeRecord(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	want := hotcfg.Magic + "\n" +
		"info cmd ./code a b\ninfo burst 3\n" +
		"i 400000 1 other\ni 400001 1 other\ni 400002 1 ret\n" +
		"b 1 3 42 43 400000 400001 400002\n" +
		"map 400000 401000 0 " + code + "\n" +
		"info batches 1\ninfo runs 1\n"
	if out.String() != want {
		t.Errorf("decoded record:\n%s\nwant:\n%s", out.String(), want)
	}

	// Read as a batches file (hotcfg.ReadBatchFiles), it is the same.
	file := filepath.Join(dir, "r.batches")
	if err := os.WriteFile(file, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := hotcfg.ReadBatchFiles([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Batches) != 1 || len(d.Batches[0].PCs) != 3 || d.Runs != 1 || len(d.Maps) != 1 || d.Code[0x400002].Kind != hotcfg.Return {
		t.Errorf("read as batches: %d batches, %d runs, %d maps, code %v", len(d.Batches), d.Runs, len(d.Maps), d.Code)
	}

	for _, c := range []struct{ rec, err string }{
		{"fragprof-record 2\n", "not a record"},
		{RecordMagic + "\ninfo cmd x\n", "cut short"},
		{RecordMagic + "\nraw x\n", "bad raw size"},
		{RecordMagic + "\nwhat\nraw 0\n", "malformed line"},
		{fmt.Sprintf("%s\nraw %d\n%s", RecordMagic, len(raw), raw[:100]), "cut short"},
		{fmt.Sprintf("%s\nraw %d\n%s\nbatches 1\n", RecordMagic, len(raw), raw), "malformed line"},
	} {
		err := DecodeRecord(strings.NewReader(c.rec), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("record %.40q: error %v, want one that says %q", c.rec, err, c.err)
		}
	}
}
