//go:build integration

package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/predict"
)

// useModel traces an example of examples/predict, builds its model, compiles
// it into C under the name given and writes the C API's library into dir; it
// returns the model file and the compiled C.
func useModel(t *testing.T, dir, src, name string, trials int, stdin string, traceArgs []string, inputs ...string) (model, csrc string) {
	t.Helper()
	model, csrc = filepath.Join(dir, name+".model"), filepath.Join(dir, name+"_model.c")
	_, stderr, code := runFragprof(t, append([]string{"trace", filepath.Join("..", "..", "examples", "predict", src), "--input", strings.Join(inputs, "\n"),
		"--stdin", stdin, "--trials", strconv.Itoa(trials), "--clock", "thread", "-o", filepath.Join(dir, "traces")}, traceArgs...)...)
	if code != 0 {
		t.Fatalf("trace %s: exit %d\n%s", src, code, stderr)
	}
	for _, args := range [][]string{{"build", filepath.Join(dir, "traces"), "-o", model}, {"compile", model, "-o", csrc, "--name", name}, {"lib", "-d", dir}} {
		if _, stderr, code := runFragprof(t, append([]string{"model"}, args...)...); code != 0 {
			t.Fatalf("model %s: exit %d\n%s", args[0], code, stderr)
		}
	}
	return model, csrc
}

// useBuild compiles an example of examples/predict with its model compiled in.
func useBuild(t *testing.T, dir, src, csrc, bin string) {
	t.Helper()
	capiBuild(t, "clang", "-O2", "-Wall", "-Werror", "-I", dir, "-I", filepath.Join("..", "..", "runtime", "c"),
		filepath.Join("..", "..", "examples", "predict", src), csrc, filepath.Join(dir, "libfragprof_model.a"), "-lm", "-pthread", "-o", bin)
}

// TestSearchChoice builds examples/predict/search_choice.c with the model of
// 60 training runs (30 inputs, each run twice with new data) (seeded data of three families) compiled in, and checks its
// decisions on 12 new data sets of n ≥ 20000, where the families are clearly
// apart: interpolation search for uniform keys, binary search for normal and
// exponential ones (decisions, not timings).
func TestSearchChoice(t *testing.T) {
	dir := t.TempDir()
	// s, the seed of the data, is a nuisance input (--vary): the model must not
	// read it, since the program choosing a search does not know it.
	_, csrc := useModel(t, dir, "search_choice.c", "search", 30, `{n} {s} {alg}\n`, []string{"--repeat", "2", "--vary", "s"},
		"n = choice(2000, 5000, 10000, 20000, 50000, 100000, 200000)", "s = uniform_int(1, 1000000)", "alg = choice(0, 1)")
	bin := filepath.Join(dir, "search")
	useBuild(t, dir, "search_choice.c", csrc, bin)
	out, err := exec.Command(bin, "choose", "12", "3", "1", "20000", "200000").CombinedOutput()
	if err != nil {
		t.Fatalf("search choose: %v\n%s", err, out)
	}
	cases := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 12 || f[0] != "case" {
			continue
		}
		cases++
		want := "binary"
		if f[2] == "uniform" {
			want = "interp"
		}
		if i := indexOf(f, "choice"); i < 0 || f[i+1] != want {
			t.Errorf("%s: want %s", line, want)
		}
	}
	if cases != 12 || !strings.Contains(string(out), "model/oracle ") {
		t.Errorf("want 12 cases and the totals:\n%s", out)
	}
	if out, err := exec.Command(bin, "choose", "0").CombinedOutput(); err == nil || !strings.Contains(string(out), "usage: search_choice choose") {
		t.Errorf("search choose 0: want a usage error, got %v\n%s", err, out)
	}
}

// indexOf returns the index of s in f, or −1.
func indexOf(f []string, s string) int {
	for i, x := range f {
		if x == s {
			return i
		}
	}
	return -1
}

// TestJacobiBlocks builds examples/predict/jacobi_blocks.c with the model of
// 16 training runs compiled in and checks that (1) with every exchange made
// the two blocks' field equals the serial run of the whole grid bit for bit,
// (2) replacing every 8th or 4th exchange by the model's extrapolation leaves
// a relative L2 error below 1e-4 and below that of reusing the last row
// received, and (3) fp_model_predict_value answers as Model.PredictValue does
// (to a relative 1e-9), with the same errors for a value not given, a variable
// and a transition the model does not know.
func TestJacobiBlocks(t *testing.T) {
	dir := t.TempDir()
	model, csrc := useModel(t, dir, "jacobi_blocks.c", "jacobi", 16, `{H} {W} {S}\n`, nil,
		"H = uniform_int(16, 48)", "W = uniform_int(64, 256)", "S = uniform_int(200, 600)")
	bin := filepath.Join(dir, "jacobi")
	useBuild(t, dir, "jacobi_blocks.c", csrc, bin)
	out, err := exec.Command(bin, "compare", "30", "150", "400", "1", "0", "8", "4").CombinedOutput()
	if err != nil {
		t.Fatalf("jacobi compare: %v\n%s", err, out)
	}
	rel := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 14 || f[0] != "k" {
			continue
		}
		key := f[1] + " " + f[3]
		if f[1] == "0" {
			if f[9] != "0" || f[13] != "1" {
				t.Errorf("every exchange made: want the exact field bit for bit: %s", line)
			}
			continue
		}
		r, err := strconv.ParseFloat(f[11], 64)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		rel[key] = r
	}
	for _, k := range []string{"8", "4"} {
		m, s := rel[k+" model"], rel[k+" stale"]
		if !(m < 1e-4) || !(m < s) {
			t.Errorf("k = %s: relative L2 error %g with the model's extrapolation, %g with the last row: want < 1e-4 and below the last row's\n%s", k, m, s, out)
		}
	}
	// fp_model_predict_value against Model.PredictValue, on the model and on
	// one of GMDH formulas learnt from the same traces.
	gmdh := filepath.Join(dir, "gmdh.model")
	if _, stderr, code := runFragprof(t, "model", "build", filepath.Join(dir, "traces"), "-o", gmdh, "--time-model", "gmdh"); code != 0 {
		t.Fatalf("model build --time-model gmdh: exit %d\n%s", code, stderr)
	}
	vbin := filepath.Join(dir, "value")
	capiBuild(t, "clang", "-O2", "-Wall", "-Werror", "-I", dir, filepath.Join("testdata", "capi", "value.c"), filepath.Join(dir, "libfragprof_model.a"), "-lm", "-pthread", "-o", vbin)
	for _, file := range []string{model, gmdh} {
		predictValueSame(t, file, vbin)
	}
}

// predictValueSame checks that fp_model_predict_value (the program vbin,
// testdata/capi/value.c) answers as Model.PredictValue does on the model of
// jacobi_blocks.c in file, to a relative 1e-9, with the same errors.
func predictValueSame(t *testing.T, file, vbin string) {
	t.Helper()
	m, err := predict.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]float64{"a": 0.012, "da": 1.5e-4, "b": 0.031, "db": 2.5e-4, "#exchange": 120, "#start": 1, "#end": 0, "$H": 30, "$W": 150, "$S": 400}
	none := map[string]float64{}
	queries := []struct {
		from, to, v string
		st          map[string]float64
	}{
		{"exchange", "exchange", "da", full}, {"exchange", "exchange", "db", full}, {"exchange", "exchange", "a", full},
		{"exchange", "exchange", "b", full}, {"start", "exchange", "a", nil}, {"exchange", "end", "a", full},
		{"exchange", "exchange", "da", none}, {"exchange", "exchange", "nothing", full}, {"end", "exchange", "a", full},
	}
	args := []string{file}
	for _, q := range queries {
		var kv []string
		for k, v := range q.st {
			kv = append(kv, k+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
		args = append(args, q.from+":"+q.to+":"+q.v+":"+strings.Join(kv, ","))
	}
	vout, err := exec.Command(vbin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("value: %v\n%s", err, vout)
	}
	lines := strings.Split(strings.TrimSpace(string(vout)), "\n")
	if len(lines) != len(queries) {
		t.Fatalf("value: %d answers to %d queries\n%s", len(lines), len(queries), vout)
	}
	for i, q := range queries {
		f := strings.Fields(lines[i])
		want, gerr := m.PredictValue(q.from, q.to, q.v, q.st)
		rc, _ := strconv.Atoi(f[1])
		got, _ := strconv.ParseFloat(f[2], 64)
		switch {
		case gerr != nil && rc == 0, gerr == nil && rc != 0:
			t.Errorf("%s: %s → %s, %s: Go %v (%v), C rc %d: %s", filepath.Base(file), q.from, q.to, q.v, want, gerr, rc, lines[i])
		case gerr == nil && !sameNumber(got, want):
			t.Errorf("%s: %s → %s, %s: C %v, Go %v", filepath.Base(file), q.from, q.to, q.v, got, want)
		}
	}
	if !strings.HasPrefix(lines[6], "value -6 ") || !strings.Contains(lines[6], "which was not given") ||
		!strings.HasPrefix(lines[7], "value -5 ") || !strings.HasPrefix(lines[8], "value -5 ") {
		t.Errorf("%s: errors: want EMISSING naming a value, ENAME, ENAME:\n%s", filepath.Base(file), strings.Join(lines[6:], "\n"))
	}
	t.Logf("%s: da after exchange → exchange at the test state %s", filepath.Base(file), strings.Fields(lines[0])[2])
}
