package hotcfg

import (
	"testing"
	"time"
)

// TestSelfCostLine sums two records' info lines and checks the cost line: the
// library's 2 ms in all (bursts 1.5 ms, mappings 0.3 ms, start 0.2 ms) over the
// program's own 98 ms (100 ms less the library's 2 ms) is 2.04%.
func TestSelfCostLine(t *testing.T) {
	var c SelfCost
	c.add(map[string]string{"batches": "10", "bursts_cpu_ns": "1000000", "maps_cpu_ns": "200000", "library_start_ns": "150000", "process_cpu_ns": "60000000"})
	c.add(map[string]string{"batches": "5", "bursts_cpu_ns": "500000", "maps_cpu_ns": "100000", "library_start_ns": "50000", "process_cpu_ns": "40000000"})
	want := SelfCost{Records: 2, Batches: 15, Bursts: 1500 * time.Microsecond, Maps: 300 * time.Microsecond, Start: 200 * time.Microsecond, Process: 100 * time.Millisecond}
	if c != want {
		t.Fatalf("summed %+v, want %+v", c, want)
	}
	line := "cost (estimate): in the program 2ms (bursts 1.5ms, 15 of 100 µs CPU each; the mappings 300µs; its start 200µs, measured by the library in 2 process(es)); no fragprof process in the tree: 2.04% over the program's own CPU time (98ms)"
	if got := c.String(); got != line {
		t.Errorf("cost line\n got %s\nwant %s", got, line)
	}
}
