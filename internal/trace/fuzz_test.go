package trace

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzParse: reading a trace file (model build's input) never panics on any input;
// an error names the file; a trace it accepts has consistent threads.
func FuzzParse(f *testing.F) {
	var r records
	r.header(uint32(TSC), 1000, 5_000_000, 0.3)
	r.events(0, []uint64{1000, 1, uint64(1 << 63), 7, math.Float64bits(-2.5)}, []uint64{1250, 2})
	r.add(1, 99, "a timing record")
	r.events(1, []uint64{2000, 2})
	r.site(1, 10, "inner", "x.c", Var{"i", Signed}, Var{"n", Unsigned}, Var{"err", Double})
	r.site(2, 20, "end", "x.c")
	r.end(0, 1000+100_000_000, 5_000_000+40_000_000, 3, 0, 0)
	var file bytes.Buffer
	if err := Write(&file, Header{Trial: 3, Status: "exit status 0", Inputs: []Input{{Name: "n", Kind: "int", Value: 7}}}, r.b); err != nil {
		f.Fatal(err)
	}
	f.Add(file.Bytes())
	f.Add([]byte(FileMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse("fuzz.fpt", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.fpt: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, th := range tr.Threads {
			if len(th.Off) != th.Len()+1 || len(th.Site) != th.Len() {
				t.Fatalf("thread with %d times, %d sites, %d offsets", th.Len(), len(th.Site), len(th.Off))
			}
			for k := 0; k < th.Len(); k++ {
				if int(th.Site[k]) >= len(tr.Sites) {
					t.Fatalf("event %d names site %d of %d", k, th.Site[k], len(tr.Sites))
				}
				th.Values(k)
			}
		}
	})
}
