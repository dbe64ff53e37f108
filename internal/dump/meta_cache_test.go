package dump

import (
	"sync"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/instrument"
)

// TestDecodeMetaShared: goroutines that ask for one blob at once (two workers' first
// trials) all get the one unit, decoded once; a damaged blob is an error for each.
func TestDecodeMetaShared(t *testing.T) {
	f := &cfg.Func{Name: "f"}
	a, b := f.AddBlock("a"), f.AddBlock("b")
	f.AddEdge(a, b, cfg.True, "")
	f.AddEdge(a, b, cfg.False, "")
	u := &instrument.Unit{Source: "shared_cache_test.c", Scheme: instrument.Edges, Funcs: []*instrument.FuncPlan{instrument.PlanFunc(f, instrument.Edges)}}
	blob, err := u.Encode()
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), blob[:len(blob)-3]...)
	units := make([]*instrument.Unit, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range units {
		wg.Go(func() {
			units[i], _ = decodeMeta(blob)
			_, errs[i] = decodeMeta(bad)
		})
	}
	wg.Wait()
	for i := range units {
		if units[i] == nil || units[i] != units[0] {
			t.Fatalf("goroutine %d got unit %p, goroutine 0 %p", i, units[i], units[0])
		}
		if errs[i] == nil {
			t.Errorf("goroutine %d: the damaged blob decoded", i)
		}
	}
}
