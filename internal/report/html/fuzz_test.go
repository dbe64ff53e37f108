package html

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: reading a result file for 'fragprof report' (the JSON of freq, count,
// cfg, hotcfg, time or compose, or a profile) never panics, and a page it accepts
// renders (without Graphviz, which the fuzzer must not run).
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 1<<16 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"functions": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data, func(string) []string { return nil })
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, p, Options{Dot: "/nonexistent/dot", MaxPlots: 1}); err != nil {
			t.Logf("Write: %v", err)
		}
	})
}
