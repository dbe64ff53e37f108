package dump

import (
	"encoding/binary"
	"strings"
	"testing"
)

// header is a version-1 dump header with no units.
func header(sig, flags uint32) []byte {
	h := make([]byte, 32)
	copy(h, Magic)
	le := binary.LittleEndian
	le.PutUint32(h[8:], 1)
	le.PutUint32(h[20:], sig)
	le.PutUint32(h[24:], 4242)
	le.PutUint32(h[28:], flags)
	return h
}

// TestFaultRecord reads the fault record that ends a dump with flag 8 (docs/runtime.md,
// "Dump layout"), and refuses a record cut short.
func TestFaultRecord(t *testing.T) {
	rec := make([]byte, faultSize)
	le := binary.LittleEndian
	for i, v := range []uint64{0x5555_5555_9c62, 0, 0x5555_5555_0000, 1, 0x7ffc_0001_0000} {
		le.PutUint64(rec[8*i:], v)
	}
	d, err := Parse("t", append(header(11, flagFinished|flagFault), rec...))
	if err != nil {
		t.Fatal(err)
	}
	if f := d.Fault; f == nil || f.PC != 0x5555_5555_9c62 || f.Addr != 0 || f.Base != 0x5555_5555_0000 || f.Code != 1 || f.SP != 0x7ffc_0001_0000 {
		t.Errorf("fault %+v", d.Fault)
	}
	if _, err := Parse("t", append(header(11, flagFinished|flagFault), rec[:faultSize-8]...)); err == nil || !strings.Contains(err.Error(), "truncated fault record") {
		t.Errorf("a record cut short: %v, want truncated", err)
	}
	d, err = Parse("t", header(6, flagFinished))
	if err != nil || d.Fault != nil {
		t.Errorf("no flag 8: %v, fault %+v; want no fault", err, d.Fault)
	}
	// Add keeps the first process's fault.
	o := &Dump{Fault: d.Fault}
	first, _ := Parse("t", append(header(11, flagFinished|flagFault), rec...))
	if err := o.Add(first); err != nil || o.Fault == nil || o.Fault.PC != 0x5555_5555_9c62 {
		t.Errorf("Add: %v, fault %+v", err, o.Fault)
	}
}

// FuzzParse: no input makes Parse panic or allocate without bound. (Its runs once
// ended "context deadline exceeded" with no crasher: Go 1.26's fuzzing coordinator
// race, golang/go#75804, which the Makefile's fuzz rule now tells from a failure.)
func FuzzParse(f *testing.F) {
	rec := make([]byte, faultSize)
	f.Add(append(header(11, flagFinished|flagFault), rec...))
	f.Add(header(0, flagFinished))
	f.Add(header(0, flagContinuous))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("fuzz", data)
		if err == nil && d == nil {
			t.Fatal("no dump and no error")
		}
	})
}
