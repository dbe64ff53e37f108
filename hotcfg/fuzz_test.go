package hotcfg

import (
	"bytes"
	"encoding/json"
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

// FuzzReadJSON: reading a graph's JSON (the "graph" member hotcfg --compare reads)
// never panics, and what it accepts is a valid graph that compares with itself.
func FuzzReadJSON(f *testing.F) {
	data, err := json.Marshal(exactLoop())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"blocks": [], "edges": [{"from": 0, "to": 5}]}`))
	f.Add([]byte(`{"blocks": [{"addr": 16}, {"addr": 8}], "edges": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := new(Graph)
		if err := json.Unmarshal(data, h); err != nil {
			return
		}
		if err := h.Check(); err != nil {
			t.Fatalf("accepted an invalid graph: %v", err)
		}
		Compare(h, h, 1)
		_ = h.String()
	})
}
