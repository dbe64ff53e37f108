//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/predict"
)

// TestTraceModelCLI runs the metalayer's commands end to end on the Brusselator:
// trace → model build → show → predict → advise.
func TestTraceModelCLI(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	model := filepath.Join(dir, "bru.model")
	_, stderr, code := runFragprof(t, "trace", "../../examples/predict/brusselator.c",
		"--input", "K = choice(1, 2, 4, 8, 16, 32)", "--stdin", `{K}\n`, "--trials", "20", "--clock", "thread", "-o", traces)
	if code != 0 {
		t.Fatalf("trace: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "20 trials") || !strings.Contains(stderr, "3 checkpoints (end, row, start)") {
		t.Errorf("trace summary:\n%s", stderr)
	}
	files, _ := filepath.Glob(filepath.Join(traces, "*.fpt"))
	if len(files) != 20 {
		t.Errorf("%d trace files", len(files))
	}
	_, stderr, code = runFragprof(t, "model", "build", traces, "-o", model)
	if code != 0 {
		t.Fatalf("model build: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "held-out runs (4)") {
		t.Errorf("model build:\n%s", stderr)
	}
	out, stderr, code := runFragprof(t, "model", "show", model)
	if code != 0 {
		t.Fatalf("model show: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"direct baseline (Extra-P form", "i := i + 1", "K := $K"} {
		if !strings.Contains(out, want) {
			t.Errorf("model show lacks %q:\n%s", want, out)
		}
	}
	// The loop's rule, one way or its complement (which arc gets the condition
	// depends on which passes the significance test first with 16 runs).
	if !strings.Contains(out, "row → row when #row < $K\n  row → end otherwise") &&
		!strings.Contains(out, "row → end when #row ≥ $K\n  row → row otherwise") {
		t.Errorf("model show: no loop rule on #row and $K:\n%s", out)
	}
	out, _, code = runFragprof(t, "model", "show", model, "--json")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m["format"] != "fragprof-model" {
		t.Errorf("model show --json: exit %d, %.200s", code, out)
	}
	out, stderr, code = runFragprof(t, "model", "predict", model, "--set", "K=20", "--json")
	var p struct {
		Predicted float64            `json:"predicted_ns"`
		Interval  [2]float64         `json:"interval_ns"`
		Vars      map[string]float64 `json:"vars"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("predict --json: exit %d\n%s%s", code, out, stderr)
	}
	if !(p.Interval[0] <= p.Predicted && p.Predicted <= p.Interval[1] && p.Predicted > 0) || p.Vars["K"] != 20 || p.Vars["i"] != 19 {
		t.Errorf("prediction %+v", p)
	}
	out, _, code = runFragprof(t, "model", "predict", model, "--set", "K=100")
	if code != 0 || !strings.Contains(out, "beyond the training range") || !strings.Contains(out, "predicted time:") {
		t.Errorf("predict K=100: exit %d\n%s", code, out)
	}
	// A probe of K = 100: two runs stopped after 3 ms (of ~30), and the prediction
	// from them.
	probe := filepath.Join(dir, "probe")
	_, stderr, code = runFragprof(t, "trace", "../../examples/predict/brusselator.c", "--input", "K = 100", "--stdin", `{K}\n`,
		"--trials", "1", "--repeat", "2", "--clock", "thread", "--stop-after", "3ms", "-o", probe)
	if code != 0 || !strings.Contains(stderr, "2 of 2 runs were probes stopped by their budget") {
		t.Fatalf("trace --stop-after: exit %d\n%s", code, stderr)
	}
	out, stderr, code = runFragprof(t, "model", "predict", model, "--set", "K=100", "--probe", probe, "--json")
	var pp struct {
		Predicted float64    `json:"predicted_ns"`
		Interval  [2]float64 `json:"interval_ns"`
		Chosen    string     `json:"chosen"`
		Probe     struct {
			Probes int     `json:"probes"`
			Share  float64 `json:"share"`
		} `json:"probe"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &pp) != nil {
		t.Fatalf("predict --probe: exit %d\n%s%s", code, out, stderr)
	}
	if pp.Chosen != "probe" || pp.Probe.Probes != 2 || !(pp.Probe.Share > 0 && pp.Probe.Share < 0.5) ||
		!(pp.Interval[0] < pp.Predicted && pp.Predicted < pp.Interval[1]) {
		t.Errorf("predict --probe: %+v", pp)
	}
	out, _, code = runFragprof(t, "model", "predict", model, "--set", "K=100", "--probe", probe)
	if code != 0 || !strings.Contains(out, "(probe; 90% interval)") || !strings.Contains(out, "probe: 2 run(s) passed") {
		t.Errorf("predict --probe: exit %d\n%s", code, out)
	}
	out, _, code = runFragprof(t, "model", "advise", model, "--set", "K=100", "--probe", probe, "--overhead", "50us")
	if code != 0 || !strings.Contains(out, "decision: parallelise") {
		t.Errorf("advise --probe: exit %d\n%s", code, out)
	}
	// Amdahl with a given P(2) of 50 µs: K = 32 takes ~10 ms (parallelise), K = 1
	// ~10 µs (do not).
	out, _, code = runFragprof(t, "model", "advise", model, "--set", "K=32", "--procs", "2", "--overhead", "50us")
	if code != 0 || !strings.Contains(out, "decision: parallelise") {
		t.Errorf("advise K=32: exit %d\n%s", code, out)
	}
	out, _, code = runFragprof(t, "model", "advise", model, "--set", "K=1", "--overhead", "50us")
	if code != 0 || !strings.Contains(out, "decision: do not parallelise") {
		t.Errorf("advise K=1: exit %d\n%s", code, out)
	}
	// Errors: usage errors exit 2 and say what is wrong; failures exit 1 and name
	// the file.
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"trace", "../../examples/predict/brusselator.c"}, 2, "-o DIR"},
		{[]string{"trace", "x.c", "--binary", "y", "-o", dir}, 2, "--binary takes no C files"},
		{[]string{"model", "build", traces}, 2, "-o FILE"},
		{[]string{"model", "build", dir, "-o", model}, 1, "no trace files"},
		{[]string{"model", "predict", model}, 2, "input K is not set"},
		{[]string{"model", "predict", model, "--set", "K=3", "--set", "N=4"}, 2, "no input N"},
		{[]string{"model", "predict", model, "--set", "K=three"}, 2, "not a number"},
		{[]string{"model", "advise", model, "--set", "K=3", "--procs", "1"}, 2, "at least 2"},
		{[]string{"model", "advise", model, "--set", "K=3", "--overhead", "soon"}, 2, "--overhead"},
		{[]string{"model", "show", filepath.Join(dir, "missing.model")}, 1, "missing.model"},
		{[]string{"trace", "../../examples/predict/brusselator.c", "--stop-after", "-1s", "-o", dir}, 2, "--stop-after -1s: a duration cannot be negative"},
		{[]string{"model", "predict", model, "--set", "K=50", "--probe", probe}, 1, "the probe ran K = 100, the prediction is for K = 50"},
		{[]string{"model", "build", probe, "-o", model + ".x"}, 1, "usable traces"},
		{[]string{"model", "show", filepath.Join(traces, "trial-000000.fpt")}, 1, "trial-000000.fpt: not a valid model file"},
	} {
		_, stderr, code := runFragprof(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("fragprof %s: exit %d, want %d with %q\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, stderr)
		}
	}
	os.RemoveAll(dir)
}

// TestTraceRepeatCLI: trace --repeat runs every trial several times, --vary draws a
// nuisance input anew in each; model build leaves that input out and judges its
// held-out predictions against each input's median run.
func TestTraceRepeatCLI(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	args := []string{"trace", "../../examples/predict/insertion_sort.c",
		"--input", "n = uniform_int(20, 60)", "--input", "s = uniform_int(1, 1000000)", "--stdin", `{n} {s}\n`,
		"--trials", "6", "-o", traces}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--vary", "s"}, "--vary needs --repeat"},
		{[]string{"--repeat", "2", "--vary", "t"}, "--vary t: no input of that name"},
		{[]string{"--repeat", "0"}, "--repeat must be at least 1"},
	} {
		_, stderr, code := runFragprof(t, append(args, tc.extra...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("trace %v: exit %d, want 2 with %q\n%s", tc.extra, code, tc.want, stderr)
		}
	}
	_, stderr, code := runFragprof(t, append(args, "--repeat", "3", "--vary", "s")...)
	if code != 0 || !strings.Contains(stderr, "18 runs (6 trials × 3)") {
		t.Fatalf("trace: exit %d\n%s", code, stderr)
	}
	inputs := func(name string) (n, s string) {
		data, err := os.ReadFile(filepath.Join(traces, name))
		if err != nil {
			t.Fatal(err)
		}
		// The header is JSON after the magic and its length.
		i := bytes.IndexByte(data, '{')
		dec := json.NewDecoder(bytes.NewReader(data[i:]))
		var h struct {
			Rep    int `json:"rep"`
			Inputs []struct {
				Name string  `json:"name"`
				V    float64 `json:"value"`
			} `json:"inputs"`
		}
		if err := dec.Decode(&h); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return fmt.Sprint(h.Inputs[0].V), fmt.Sprint(h.Rep, " ", h.Inputs[1].V)
	}
	for trial := 0; trial < 6; trial++ {
		n0, s0 := inputs(fmt.Sprintf("trial-%06d.fpt", trial))
		for rep := 1; rep < 3; rep++ {
			n, s := inputs(fmt.Sprintf("trial-%06d-r%02d.fpt", trial, rep))
			if n != n0 || s == s0 || !strings.HasPrefix(s, fmt.Sprint(rep, " ")) {
				t.Errorf("trial %d repetition %d: n %s, rep and s %s; the first run: n %s, s %s", trial, rep, n, s, n0, s0)
			}
		}
	}
	model := filepath.Join(dir, "sort.model")
	_, stderr, code = runFragprof(t, "model", "build", traces, "-o", model)
	if code != 0 || !strings.Contains(stderr, "held-out inputs (1, 3 runs each, against their median)") {
		t.Fatalf("model build: exit %d\n%s", code, stderr)
	}
	out, _, code := runFragprof(t, "model", "show", model, "--json")
	var m struct {
		Inputs   []string `json:"inputs"`
		Training struct {
			Runs, Points int
		} `json:"training"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || fmt.Sprint(m.Inputs) != "[n]" || m.Training.Runs != 15 || m.Training.Points != 5 {
		t.Errorf("model show --json: exit %d, inputs %v, training %+v", code, m.Inputs, m.Training)
	}
}

// TestModelCacheCLI: a kernel that sweeps an array of n doubles, traced where the
// array fits the 1 MiB L2 (8000 ≤ n ≤ 64000: 64–512 KB) and predicted far beyond it:
// the model fits the working set from the runs' resident sets, and a prediction
// past L2 says so in words and in JSON and claims no level for its interval, while
// one inside the training span does neither. The test VM's caches are given (48
// KiB L1, 1 MiB L2, L3 unknown), so that it checks the logic, not this machine.
func TestModelCacheCLI(t *testing.T) {
	saved := predict.ReadCaches
	predict.ReadCaches = func() predict.Caches {
		return predict.Caches{Levels: []predict.CacheLevel{{Level: 1, Bytes: 48 << 10}, {Level: 2, Bytes: 1 << 20}, {Level: 3}}, Source: "getconf"}
	}
	defer func() { predict.ReadCaches = saved }()
	dir := t.TempDir()
	traces, large := filepath.Join(dir, "traces"), filepath.Join(dir, "large")
	model := filepath.Join(dir, "sweep.model")
	src := "../../examples/predict/kernels/sweep.c"
	_, stderr, code := runFragprof(t, "trace", src, "--input", "n = uniform_int(8000, 64000)", "--stdin", `{n}\n`, "--trials", "12", "-o", traces)
	if code != 0 {
		t.Fatalf("trace: exit %d\n%s", code, stderr)
	}
	const big = 2000000 // 16 MB
	_, stderr, code = runFragprof(t, "trace", src, "--input", fmt.Sprintf("n = choice(%d)", big), "--stdin", `{n}\n`, "--trials", "2", "-o", large)
	if code != 0 {
		t.Fatalf("trace (large): exit %d\n%s", code, stderr)
	}
	_, stderr, code = runFragprof(t, "model", "build", traces, "--test", large, "-o", model)
	if code != 0 {
		t.Fatalf("model build: exit %d\n%s", code, stderr)
	}
	out, _, code := runFragprof(t, "model", "show", model)
	for _, want := range []string{"working set: ", "·$n^1 bytes", "caches of the machine the model was built on: L1 48 KiB, L2 1 MiB, L3 unknown (getconf)",
		"every training run fit in the 1 MiB L2: from $n ≈", "2 of the 2 points crossed a cache level that no training run crossed"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("model show lacks %q:\n%s", want, out)
		}
	}
	type prediction struct {
		Level      float64 `json:"interval_level"`
		WorkingSet float64 `json:"working_set_bytes"`
		Cache      *struct {
			Level      int     `json:"level"`
			CacheBytes int64   `json:"cache_bytes"`
			Direction  string  `json:"direction"`
			WorkingSet float64 `json:"working_set_bytes"`
			TrainMax   float64 `json:"train_max_bytes"`
		} `json:"cache_crossing"`
	}
	predictJSON := func(n int) prediction {
		out, stderr, code := runFragprof(t, "model", "predict", model, "--set", fmt.Sprintf("n=%d", n), "--json")
		var p prediction
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
			t.Fatalf("predict n=%d --json: exit %d\n%s%s", n, code, out, stderr)
		}
		return p
	}
	// Inside the training span: no crossing, the conformal level.
	p := predictJSON(30000)
	if p.Cache != nil || p.Level != 0.9 || p.WorkingSet < 8*30000 || p.WorkingSet > 1.5*8*30000 {
		t.Errorf("n = 30000: %+v, want no crossing, level 0.9, a working set of about 240 KB", p)
	}
	out, _, _ = runFragprof(t, "model", "predict", model, "--set", "n=30000")
	if strings.Contains(out, "beyond the") || !strings.Contains(out, "90% interval") {
		t.Errorf("predict n=30000:\n%s", out)
	}
	// Far beyond L2: the crossing, no level, a working set within 1.5× of the array.
	p = predictJSON(big)
	if c := p.Cache; c == nil || c.Level != 2 || c.CacheBytes != 1<<20 || c.Direction != "beyond" || c.TrainMax > 1<<20 || p.Level != 0 {
		t.Errorf("n = %d: %+v, want a crossing of L2 and no interval level", big, p)
	}
	if r := p.WorkingSet / (8 * big); r < 1/1.5 || r > 1.5 {
		t.Errorf("n = %d: working set %.4g bytes, %.3g× the array's", big, p.WorkingSet, r)
	}
	out, _, _ = runFragprof(t, "model", "predict", model, "--set", fmt.Sprint("n=", big))
	for _, want := range []string{"no confidence level", "the working set leaves L2",
		fmt.Sprintf("warning: at n = %g the working set is about", float64(big)), "beyond the 1 MiB L2 that every training run fit in",
		"the time per operation is likely to rise; the interval does not account for it"} {
		if !strings.Contains(out, want) {
			t.Errorf("predict n=%d lacks %q:\n%s", big, want, out)
		}
	}
	// The model's working set against the one measured at that size.
	out, _, _ = runFragprof(t, "model", "show", model, "--json")
	var m struct {
		Evaluation struct {
			Rows []struct {
				WorkingSet float64 `json:"working_set_bytes"`
				Predicted  float64 `json:"predicted_working_set_bytes"`
				Cache      string  `json:"cache"`
			} `json:"rows"`
		} `json:"evaluation"`
	}
	if json.Unmarshal([]byte(out), &m) != nil || len(m.Evaluation.Rows) != 2 {
		t.Fatalf("model show --json: %.300s", out)
	}
	for _, row := range m.Evaluation.Rows {
		if r := row.Predicted / row.WorkingSet; row.Cache != "beyond L2" || r < 1/1.5 || r > 1.5 || row.WorkingSet < 8*big {
			t.Errorf("held-out row at n = %d: %+v", big, row)
		}
	}
	// On a machine with other caches the model says whose its figures are.
	predict.ReadCaches = func() predict.Caches {
		return predict.Caches{Levels: []predict.CacheLevel{{Level: 1, Bytes: 32 << 10}, {Level: 2, Bytes: 256 << 10}}, Source: "sysfs"}
	}
	out, _, _ = runFragprof(t, "model", "predict", model, "--set", "n=30000")
	if !strings.Contains(out, "warning: the model was built on a machine with caches L1 48 KiB, L2 1 MiB, L3 unknown (getconf); this one has L1 32 KiB, L2 256 KiB (sysfs)") {
		t.Errorf("predict on another machine:\n%s", out)
	}
}
