package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestDOTCalls: a block's calls of a function of the profile are dashed edges
// between the clusters, to the callee's entry block, with the number of calls (the
// block's count × its call sites); calls of functions outside it (printf) are not
// drawn.
func TestDOTCalls(t *testing.T) {
	p := testProfile(
		fn{name: "main", counts: []uint64{1, 4}, calls: [][]string{{"f"}, {"f", "f", "printf"}}},
		fn{name: "f", counts: []uint64{9}},
	)
	var buf bytes.Buffer
	if err := WriteDOT(&buf, p); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "style=dashed") {
			calls = append(calls, strings.TrimSpace(l))
		}
	}
	want := []string{
		`f0_b0 -> f1_b0 [style=dashed label="call ×1"];`,
		`f0_b1 -> f1_b0 [style=dashed label="call ×8"];`,
	}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("call edges:\n%s\nwant:\n%s\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"), buf.String())
	}
}
