package trace

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// records builds an extra channel by hand, as the runtime lays it out.
type records struct{ b []byte }

func (r *records) add(typ, kind uint32, payload ...any) {
	var p []byte
	p = binary.LittleEndian.AppendUint32(p, kind)
	for _, x := range payload {
		switch v := x.(type) {
		case uint32:
			p = binary.LittleEndian.AppendUint32(p, v)
		case uint64:
			p = binary.LittleEndian.AppendUint64(p, v)
		case float64:
			p = binary.LittleEndian.AppendUint64(p, math.Float64bits(v))
		case []byte:
			p = append(p, v...)
		case string:
			p = append(p, v...)
		}
	}
	r.b = binary.LittleEndian.AppendUint32(r.b, typ)
	r.b = binary.LittleEndian.AppendUint32(r.b, uint32(len(p)))
	r.b = append(r.b, p...)
}

func (r *records) header(clock uint32, tick0, ns0 uint64, rate float64) {
	r.add(RecordType, kindHeader, uint32(1), clock, uint32(42), uint32(0), tick0, ns0, rate, 12.5)
}

func (r *records) site(id uint32, line uint32, name, file string, vars ...Var) {
	kinds := []byte{}
	var names string
	for _, v := range vars {
		kinds = append(kinds, byte(v.Kind))
		names += v.Name + "\x00"
	}
	r.add(RecordType, kindSite, id, line, uint32(len(vars)), kinds, name+"\x00"+file+"\x00"+names)
}

func (r *records) events(thread uint32, evs ...[]uint64) {
	var p []any
	p = append(p, thread)
	for _, e := range evs {
		p = append(p, e[0], uint64(e[1])|uint64(len(e)-2)<<32)
		for _, v := range e[2:] {
			p = append(p, v)
		}
	}
	r.add(RecordType, kindEvents, p...)
}

func (r *records) end(sig uint32, tick1, ns1, events, lost uint64, truncated uint32) {
	r.add(RecordType, kindEnd, sig, uint32(1), tick1, ns1, events, lost, truncated, uint32(0))
}

// TestWorkingSetRecord: an END record with the memory fields gives the working set
// max(peak − file, seen) − base − runtime; the 48-byte END of an older runtime
// gives none.
func TestWorkingSetRecord(t *testing.T) {
	var r records
	r.header(uint32(Monotonic), 0, 0, 1)
	r.add(RecordType, kindEnd, uint32(0), uint32(1), uint64(10), uint64(10), uint64(0), uint64(0), uint32(0), uint32(0),
		uint64(10<<20), uint64(200<<10), uint64(2<<20), uint64(128<<10), uint64(9<<20))
	tr, err := ParseRecords("chan", r.b)
	if err != nil {
		t.Fatal(err)
	}
	ws, ok := tr.WorkingSet()
	// The peak's anonymous part: max(10 MiB − 2 MiB, 9 MiB) = 9 MiB.
	if want := float64(9<<20 - 200<<10 - 128<<10); !ok || ws != want {
		t.Errorf("working set %v (%v), want %v", ws, ok, want)
	}
	var old records
	old.header(uint32(Monotonic), 0, 0, 1)
	old.end(0, 10, 10, 0, 0, 0)
	tr, err = ParseRecords("chan", old.b)
	if err != nil {
		t.Fatal(err)
	}
	if ws, ok := tr.WorkingSet(); ok || !tr.Finished {
		t.Errorf("an older END record gave a working set %v", ws)
	}
}

// TestParseRecords reads a hand-made channel: sites after the events that use them
// (as the runtime writes them), values of every kind, two threads, a record of
// another subsystem in between, and the TSC converted with the run's own
// calibration.
func TestParseRecords(t *testing.T) {
	var r records
	// 2.5 ticks per ns; the run lasts 40 ms (≥ 20 ms: the END pair is used).
	r.header(uint32(TSC), 1000, 5_000_000, 0.3)
	r.events(0, []uint64{1000, 1, uint64(1 << 63), 7, math.Float64bits(-2.5)}, []uint64{1250, 2})
	r.add(1, 99, "a timing record")
	r.events(1, []uint64{2000, 2})
	r.events(0, []uint64{3500, 2})
	r.site(1, 10, "inner", "x.c", Var{"i", Signed}, Var{"n", Unsigned}, Var{"err", Double})
	r.site(2, 20, "end", "x.c")
	r.end(0, 1000+100_000_000, 5_000_000+40_000_000, 4, 0, 0)
	tr, err := ParseRecords("chan", r.b)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Other != 1 || !tr.Finished || tr.Events != 4 || tr.Pid != 42 || tr.OverheadNs != 12.5 {
		t.Errorf("trace %+v", tr)
	}
	if math.Abs(tr.NsPerTick-0.4) > 1e-12 {
		t.Errorf("ns per tick %v, want 0.4 (the END calibration)", tr.NsPerTick)
	}
	if len(tr.Threads) != 2 || tr.Main().Len() != 3 || tr.Threads[1].Len() != 1 {
		t.Fatalf("threads %+v", tr.Threads)
	}
	m := tr.Main()
	if got := m.Time; got[0] != 0 || got[1] != 100 || got[2] != 1000 {
		t.Errorf("times %v, want 0 100 1000 ns", got)
	}
	v := m.Values(0)
	if v[0] != -9223372036854775808 || v[1] != 7 || v[2] != -2.5 {
		t.Errorf("values %v", v)
	}
	if tr.Sites[m.Site[1]].Name != "end" || len(m.Values(1)) != 0 {
		t.Errorf("second event: site %v values %v", tr.Sites[m.Site[1]], m.Values(1))
	}
}

// TestParseErrors: a malformed channel is an error naming the file and the offset.
func TestParseErrors(t *testing.T) {
	var good records
	good.header(uint32(Monotonic), 0, 0, 1)
	good.events(0, []uint64{5, 1})
	good.site(1, 1, "a", "a.c")
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated record", good.b[:len(good.b)-3], "claims"},
		{"stray bytes", append(append([]byte(nil), good.b...), 1, 2, 3), "stray bytes"},
		{"unknown site", func() []byte {
			var r records
			r.header(uint32(Monotonic), 0, 0, 1)
			r.events(0, []uint64{5, 9})
			return r.b
		}(), "unknown site 9"},
		{"no header", func() []byte {
			var r records
			r.site(1, 1, "a", "a.c")
			return r.b
		}(), "without a HEADER"},
		{"values of the wrong number", func() []byte {
			var r records
			r.header(uint32(Monotonic), 0, 0, 1)
			r.events(0, []uint64{5, 1, 3})
			r.site(1, 1, "a", "a.c")
			return r.b
		}(), "has 1 values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRecords("bad.fpt", tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bad.fpt: offset ") {
				t.Errorf("error %v, want bad.fpt: offset …: …%s…", err, tc.want)
			}
		})
	}
}

// TestFileRoundTrip: a trace file keeps its header and the channel verbatim.
func TestFileRoundTrip(t *testing.T) {
	var r records
	r.header(uint32(Monotonic), 0, 0, 1)
	r.events(0, []uint64{5, 1, math.Float64bits(1.5)})
	r.site(1, 3, "p", "p.c", Var{"x", Double})
	r.end(0, 10, 10, 1, 0, 0)
	h := Header{Program: "p.c", Trial: 7, Seed: 3, Inputs: []Input{{Name: "n", Kind: "int", Value: 12, Text: "12"}},
		Args: []string{"-v"}, Stdin: "12\n", Status: "exit status 0", WallNs: 1234}
	var b bytes.Buffer
	if err := Write(&b, h, r.b); err != nil {
		t.Fatal(err)
	}
	tr, err := Parse("f.fpt", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Trial != 7 || tr.Header.Inputs[0].Value != 12 || tr.Header.Stdin != "12\n" {
		t.Errorf("header %+v", tr.Header)
	}
	if v, ok := tr.Input("n"); !ok || v != 12 {
		t.Errorf("Input(n) = %v, %v", v, ok)
	}
	if tr.Main().Values(0)[0] != 1.5 {
		t.Errorf("value %v", tr.Main().Values(0))
	}
	var b2 bytes.Buffer
	Write(&b2, tr.Header, r.b)
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Errorf("parse → write changed the file")
	}
	if _, err := Parse("x.fpt", []byte("FPTRACE\x00\x03\x00\x00\x00\x00\x00\x00\x00")); err == nil || !strings.Contains(err.Error(), "version 3") {
		t.Errorf("version 3: %v", err)
	}
	// Version 1 (the records verbatim) is still read.
	js := b.Bytes()[16 : 16+binary.LittleEndian.Uint32(b.Bytes()[12:])]
	v1 := append([]byte("FPTRACE\x00\x01\x00\x00\x00"), b.Bytes()[12:16]...)
	v1 = append(append(v1, js...), r.b...)
	tr1, err := Parse("v1.fpt", v1)
	if err != nil || tr1.Main().Values(0)[0] != 1.5 || tr1.Header.Trial != 7 {
		t.Errorf("version 1: %v", err)
	}
	// A corrupt compressed body is named.
	bad := append([]byte(nil), b.Bytes()[:16+len(js)]...)
	bad = append(bad, 0xff, 0xff, 0xff)
	if _, err := Parse("z.fpt", bad); err == nil || !strings.Contains(err.Error(), "z.fpt: offset") {
		t.Errorf("corrupt body: %v", err)
	}
}

// TestFileCompact: a trace of many similar events is stored in a few bytes per event.
func TestFileCompact(t *testing.T) {
	var r records
	r.header(uint32(Monotonic), 0, 0, 1)
	var ev [][]uint64
	for i := 0; i < 100000; i++ {
		ev = append(ev, []uint64{uint64(1000 + 37*i + i%5), 1, uint64(i)})
	}
	r.events(0, ev...)
	r.site(1, 3, "inner", "p.c", Var{"i", Signed})
	r.end(0, 10, 10, 100000, 0, 0)
	var b bytes.Buffer
	if err := Write(&b, Header{Program: "p.c"}, r.b); err != nil {
		t.Fatal(err)
	}
	if per := float64(b.Len()) / 100000; per > 6 {
		t.Errorf("%.1f bytes per event (%d raw): want at most 6", per, len(r.b)/100000)
	}
	tr, err := Parse("c.fpt", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if m := tr.Main(); m.Len() != 100000 || m.Values(99999)[0] != 99999 {
		t.Errorf("read back %d events", m.Len())
	}
}
