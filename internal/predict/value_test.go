package predict

import (
	"math"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/trace"
)

// TestPredictValue learns x := 0.5·x + 3 and i := i + 1 on a self loop from
// synthetic runs and checks PredictValue: the formulas at a state given (exact
// forms exactly, the fitted line to 1e-9), a variable the arc does not record
// keeping its given value, and the errors that name what is wrong.
func TestPredictValue(t *testing.T) {
	var traces []*trace.Trace
	for k := 0; k < 12; k++ {
		n := 20 + k
		s := newSynth(uint64(k), "n", n)
		x := float64(k)
		s.point("begin", 10)
		for i := 0; i < n; i++ {
			s.point("step", 100, "x", x, "i", i)
			x = 0.5*x + 3
		}
		s.point("end", 10)
		traces = append(traces, s.done())
	}
	m := buildNoHoldout(t, traces)
	state := map[string]float64{"x": 10, "i": 4, "$n": 25, "#step": 5}
	if v, err := m.PredictValue("step", "step", "x", state); err != nil || math.Abs(v-8) > 1e-9*8 {
		t.Errorf("x after step → step at x = 10: %v (%v), want 8", v, err)
	}
	if v, err := m.PredictValue("step", "step", "i", state); err != nil || v != 5 {
		t.Errorf("i after step → step at i = 4: %v (%v), want 5", v, err)
	}
	if v, err := m.PredictValue("step", "end", "x", state); err != nil || v != 10 {
		t.Errorf("x after step → end (not recorded there): %v (%v), want the given 10", v, err)
	}
	for _, c := range []struct {
		from, to, name string
		st             map[string]float64
		want           string
	}{
		{"step", "step", "x", map[string]float64{"i": 4}, "reads x, which was not given"},
		{"step", "step", "y", state, `no recorded variable "y"`},
		{"nowhere", "step", "x", state, `no checkpoint "nowhere"`},
		{"end", "step", "x", state, "no transition end → step"},
		{"step", "step", "x", map[string]float64{"#nowhere": 1}, `no value "#nowhere"`},
	} {
		if _, err := m.PredictValue(c.from, c.to, c.name, c.st); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s, %s at %v: %v, want an error containing %q", c.from, c.to, c.name, c.st, err, c.want)
		}
	}
}
