package advise

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/predict"
	"github.com/fragprof/fragprof/internal/trace"
)

// TestAdviseUntracedUnknown: when the time without the checkpoints is unknown
// (NaN: they are nearly all of the traced time), advise works with the traced
// time — never a clamped zero.
func TestAdviseUntracedUnknown(t *testing.T) {
	p := &predict.Prediction{TimeNs: 1e6, Interval: [2]float64{9e5, 1.1e6}, UntracedNs: math.NaN()}
	if a := Advise(p, 2, Overhead{N: 2, Ns: 1}); a.TimeNs != p.TimeNs {
		t.Errorf("advise time %v, want the traced %v", a.TimeNs, p.TimeNs)
	}
	p.UntracedNs = 5e5
	if a := Advise(p, 2, Overhead{N: 2, Ns: 1}); a.TimeNs != p.UntracedNs {
		t.Errorf("advise time %v, want the untraced %v", a.TimeNs, p.UntracedNs)
	}
}

// brusselatorModel traces examples/predict/brusselator.c for real (--clock thread)
// and builds its model.
func brusselatorModel(t *testing.T, tc *build.Toolchain, dir string) *predict.Model {
	t.Helper()
	src := filepath.Join("..", "..", "..", "examples", "predict", "brusselator.c")
	bin := filepath.Join(dir, "prog")
	var msg bytes.Buffer
	if _, err := tc.Build(context.Background(), &msg, build.Spec{Sources: []string{src}}, dir, bin); err != nil {
		t.Fatalf("building brusselator.c: %v\n%s", err, msg.String())
	}
	model, err := dist.Parse("K = choice(1, 2, 4, 8, 16, 32)")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := dist.ParseTemplate(`{K}\n`, model, dist.BackslashEscapes)
	if err != nil {
		t.Fatal(err)
	}
	col := &trace.Collector{Binary: bin, Program: "brusselator.c", Inputs: &dist.File{Model: model, Stdin: tmpl},
		Seed: 1, Dir: dir, Clock: "thread"}
	var ts []*trace.Trace
	err = col.Run(context.Background(), 0, 30, 1, func(r trace.Result) error {
		if r.Err != nil {
			return r.Err
		}
		var b bytes.Buffer
		if err := trace.Write(&b, r.Header, r.Extra); err != nil {
			return err
		}
		tr, err := trace.Parse(fmt.Sprintf("trial %d", r.Header.Trial), b.Bytes())
		if err != nil {
			return err
		}
		ts = append(ts, tr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := predict.Build(ts, predict.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func predictK(t *testing.T, m *predict.Model, k int) *predict.Prediction {
	t.Helper()
	p, err := m.Predict(map[string]float64{"K": float64(k)}, predict.PredictOptions{Runs: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAdviseCacheCrossing: a prediction whose working set leaves a cache level the
// training runs fit in may take longer than its interval says, which can only
// favour parallelising: "do not parallelise" is no longer certain, "parallelise"
// stays so; the reverse when the working set comes back within a level. A
// prediction from probes, which ran past the level, keeps its certainty.
func TestAdviseCacheCrossing(t *testing.T) {
	beyond := &predict.CacheCrossing{Level: 2, CacheBytes: 1 << 20, Direction: "beyond", WorkingSet: 6 << 20}
	within := &predict.CacheCrossing{Level: 2, CacheBytes: 1 << 20, Direction: "within", WorkingSet: 1 << 19}
	for _, c := range []struct {
		name        string
		overheadNs  float64
		cache       *predict.CacheCrossing
		probed      bool
		parallelise bool
		certain     bool
	}{
		{"no crossing, no", 9e5, nil, false, false, true},
		{"beyond, no", 9e5, beyond, false, false, false},
		{"beyond, yes", 1e3, beyond, false, true, true},
		{"within, no", 9e5, within, false, false, true},
		{"within, yes", 1e3, within, false, true, false},
		{"beyond, no, probed", 9e5, beyond, true, false, true},
		{"within, yes, probed", 1e3, within, true, true, true},
	} {
		p := &predict.Prediction{TimeNs: 1e6, Interval: [2]float64{9e5, 1.1e6}, UntracedNs: 1e6, Cache: c.cache}
		if c.probed {
			p.Probe = &predict.ProbeInfo{Probes: 1}
		}
		a := Advise(p, 2, Overhead{N: 2, Ns: c.overheadNs})
		if a.Parallelise != c.parallelise || a.Certain != c.certain {
			t.Errorf("%s: parallelise %v, certain %v; want %v, %v", c.name, a.Parallelise, a.Certain, c.parallelise, c.certain)
		}
		var buf bytes.Buffer
		if err := a.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		if say := strings.Contains(buf.String(), "crosses the L2 cache"); say != (c.cache != nil && !c.certain) {
			t.Errorf("%s: the text says of the crossing %v:\n%s", c.name, say, buf.String())
		}
	}
}
