package hotcfg

import (
	"bytes"
	"testing"
	"time"
)

// FuzzBatchReader: reading a batches file (hotcfg, sample's output) never panics
// and never stops at a malformed line: everything read builds a hot CFG.
func FuzzBatchReader(f *testing.F) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Info("cmd", "prog a b")
	w.Batch(Batch{Seq: 1, Time: 3 * time.Millisecond, PID: 10, TID: 10, PCs: []uint64{0x1000, 0x1002, 0x1004}}, loopCode)
	w.Batch(Batch{Seq: 2, Time: 6 * time.Millisecond, PID: 10, TID: 11, PCs: []uint64{0x1006, 0x9000}}, loopCode)
	w.Map(Mapping{0x1000, 0x2000, 0x1000, "/bin/prog"})
	w.Flush()
	f.Add(buf.Bytes())
	f.Add([]byte(Magic + "\nb 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		b := NewBursts(r.Code())
		for r.Next() {
			b.AddBatch(r.Batch())
		}
		b.Graph()
		for _, e := range r.Bad() {
			if e.Line <= 0 {
				t.Errorf("bad line without a line number: %v", e)
			}
		}
	})
}

// FuzzReadJSON: reading a hot CFG's JSON (hotcfg --compare) never panics, and what
// it accepts compares with itself.
func FuzzReadJSON(f *testing.F) {
	g := exactLoop()
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf, nil, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"blocks": [], "edges": [{"from": 0, "to": 5}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		Compare(h, h, 1)
		_ = h.String()
	})
}
