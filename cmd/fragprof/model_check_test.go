//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/predict"
)

// TestModelCheckCLI runs model check on real builds of matmul, each a copy of
// the example under its own name with every line in its place: the model is
// learnt from the unchanged build's runs; the unchanged build's other runs keep
// to it (exit 0); a build whose row body does several times its work is
// flagged, the row → row arc named with its line; a build whose row loop stops
// one row early breaks row's rule, named with its line; a build whose
// checkpoint is renamed cannot be checked (an error naming it); a bad --gamma is
// a usage error.
func TestModelCheckCLI(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile("../../examples/predict/matmul.c")
	if err != nil {
		t.Fatal(err)
	}
	// variant writes dir/name/matmul.c, the example with old replaced by new.
	variant := func(name, old, new string) string {
		t.Helper()
		if !strings.Contains(string(orig), old) {
			t.Fatalf("matmul.c has no %q", old)
		}
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, "matmul.c")
		if err := os.WriteFile(p, []byte(strings.Replace(string(orig), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	trace := func(src, out, seed, trials, reps string) {
		t.Helper()
		_, stderr, code := runFragprof(t, "trace", src, "--input", "n = uniform_int(40, 80)", "--stdin", `{n}\n`,
			"--clock", "thread", "--seed", seed, "--trials", trials, "--repeat", reps, "-o", filepath.Join(dir, out))
		if code != 0 {
			t.Fatalf("trace %s: exit %d\n%s", src, code, stderr)
		}
	}
	base := variant("base", "", "")
	trace(base, "train", "1", "16", "3")
	trace(base, "same", "2", "3", "1")
	trace(variant("slow", "c[i * n + j] = s;", "c[i * n + j] = s; for (volatile long v = 0; v < 4 * n; v++) ;"), "slow", "2", "3", "1")
	trace(variant("branch", "for (long i = 0; i < n; i++) {\n\t\tFP_POINT", "for (long i = 0; i < n - 1; i++) {\n\t\tFP_POINT"), "branch", "2", "2", "1")
	trace(variant("renamed", `FP_POINT_VARS("row"`, `FP_POINT_VARS("line"`), "renamed", "2", "1", "1")
	model := filepath.Join(dir, "mm.model")
	if _, stderr, code := runFragprof(t, "model", "build", filepath.Join(dir, "train"), "--holdout", "0", "-o", model); code != 0 {
		t.Fatalf("model build: exit %d\n%s", code, stderr)
	}
	check := func(set string, extra ...string) (string, string, int) {
		return runFragprof(t, append([]string{"model", "check", model, filepath.Join(dir, set)}, extra...)...)
	}
	report := func(out string) checkReport {
		t.Helper()
		var rep checkReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return rep
	}
	// at says whether a deviation is along from → to, at matmul.c's lines.
	at := func(d predict.Deviation, kind, from string, fromLine int, to string, toLine int) bool {
		return d.Kind == kind && d.From == from && d.To == to &&
			strings.HasSuffix(d.FromPlace, fmt.Sprintf("/matmul.c:%d", fromLine)) && strings.HasSuffix(d.ToPlace, fmt.Sprintf("/matmul.c:%d", toLine))
	}

	// The unchanged build: no transition, rule or time out of the model. At γ =
	// 0.99 the time test, at (1 − γ)/k per arc, is beyond what 48 training runs
	// can flag (1/49 > 0.01): the exit status does not depend on this
	// machine's load. The ratios are still reported.
	out, stderr, code := check("same", "--gamma", "0.99", "--json")
	if code != 0 {
		t.Fatalf("unchanged runs: exit %d\n%s%s", code, out, stderr)
	}
	rep := report(out)
	if len(rep.Runs) != 3 || rep.Deviating != 0 || rep.Gamma != 0.99 {
		t.Fatalf("unchanged runs: %d runs, %d deviating, γ %v", len(rep.Runs), rep.Deviating, rep.Gamma)
	}
	for _, rc := range rep.Runs {
		row := 0
		for _, d := range rc.Times {
			if at(d, "time", "row", 29, "row", 29) {
				row++
				if !(d.Ratio > 0.5 && d.Ratio < 2) || d.Hi != 0 {
					t.Errorf("%s: row → row at %.3g× its usual time, limit %v", rc.Run, d.Ratio, d.Hi)
				}
			}
		}
		if row != 1 || rc.ArcsTested != len(rc.Times) || len(rc.Notes) != 0 {
			t.Errorf("%s: %d arcs tested, times %+v, notes %q", rc.Run, rc.ArcsTested, rc.Times, rc.Notes)
		}
	}

	// Several times the work in the row body: flagged at the default γ (0.9),
	// row → row named, slower, and no transition or rule. (Another arc's time
	// may be flagged too: at γ = 0.9 a run of the unchanged program is, one
	// time in ten.)
	out, _, code = check("slow", "--json")
	rep = report(out)
	if code != 1 || rep.Deviating != 3 || rep.Gamma != 0.9 {
		t.Errorf("slowed build: exit %d, %d of %d runs deviate at γ %v\n%s", code, rep.Deviating, len(rep.Runs), rep.Gamma, out)
	}
	for _, rc := range rep.Runs {
		row := 0
		for _, d := range rc.Deviations {
			if d.Kind != "time" {
				t.Errorf("%s: %s", rc.Run, d.String())
			}
			if at(d, "time", "row", 29, "row", 29) && d.Ratio > 1.5 {
				row++
			}
		}
		if row != 1 {
			t.Errorf("%s: deviations %+v, want row → row slower", rc.Run, rc.Deviations)
		}
	}
	out, _, _ = check("slow")
	if !strings.Contains(out, "3 of 3 runs deviate") || !strings.Contains(out, "/matmul.c:29) → row (") {
		t.Errorf("slowed build, the text:\n%s", out)
	}

	// One row fewer: row's rule chose another row where the run went to end.
	out, _, code = check("branch", "--json")
	rep = report(out)
	if code != 1 || rep.Deviating != 2 {
		t.Errorf("changed branch: exit %d, %d of %d runs deviate\n%s", code, rep.Deviating, len(rep.Runs), out)
	}
	for _, rc := range rep.Runs {
		var rule []predict.Deviation
		for _, d := range rc.Deviations {
			if d.Kind == "rule" {
				rule = append(rule, d)
			}
		}
		if len(rule) != 1 || !at(rule[0], "rule", "row", 29, "end", 37) || rule[0].Expected != "row" || rule[0].Count != 1 || rule[0].Event != rc.Events-1 {
			t.Errorf("%s: rule deviations %+v, want row's rule broken once, at the last row", rc.Run, rule)
		}
	}
	out, _, _ = check("branch")
	if !strings.Contains(out, "/matmul.c:37), the rule chose row (row → ") {
		t.Errorf("changed branch, the text:\n%s", out)
	}

	// Another checkpoint name: an error, not a verdict.
	_, stderr, code = check("renamed")
	if code != 1 || !strings.Contains(stderr, `checkpoint "line" at `) || !strings.Contains(stderr, "is not in the model (its checkpoints: end, row, start)") {
		t.Errorf("renamed checkpoint: exit %d\n%s", code, stderr)
	}

	for _, args := range [][]string{{"--gamma", "1.5"}, {"--gamma", "0"}} {
		if _, stderr, code := check("same", args...); code != 2 || !strings.Contains(stderr, "--gamma") {
			t.Errorf("model check %v: exit %d\n%s", args, code, stderr)
		}
	}
	if _, stderr, code := runFragprof(t, "model", "check", model); code != 2 {
		t.Errorf("model check without runs: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runFragprof(t, "model", "check", model, filepath.Join(dir, "nothing")); code != 2 || !strings.Contains(stderr, "nothing") {
		t.Errorf("model check of a missing run: exit %d\n%s", code, stderr)
	}
}

// TestModelCheckRelative runs model check on real builds of heat, whose loop
// has two phases, a sweep and a residual, each between its own checkpoints: a
// build whose sweep does about half again its work or more (a chain of
// dependent multiply-adds, n²/6 of them, after the sweep's loop nest) is
// flagged, sweep → residual named with its lines, slower; residual → sweep,
// which the change moves the other way against the rest of the run, is not
// named; the unchanged build's runs keep to the model, each arc tested
// against the rest of the run (its ratio alone reported) or alone — which,
// model build decides from how the training runs scattered.
func TestModelCheckRelative(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile("../../examples/predict/heat.c")
	if err != nil {
		t.Fatal(err)
	}
	const sweepEnd = "\t\t}\n\t\tFP_POINT(\"residual\");"
	if !strings.Contains(string(orig), sweepEnd) {
		t.Fatalf("heat.c has no %q", sweepEnd)
	}
	for name, src := range map[string]string{
		"base": string(orig),
		"slow": strings.Replace(string(orig), sweepEnd, "\t\t} { volatile double z = 1; for (long q = 0; q < n * n; q++) z = z * 0.999 + 0.001; }\n\t\tFP_POINT(\"residual\");", 1),
	} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "heat.c"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trace := func(build, out, seed, trials, reps string) {
		t.Helper()
		_, stderr, code := runFragprof(t, "trace", filepath.Join(dir, build, "heat.c"), "--input", "n = uniform_int(30, 60)\nT = uniform_int(20, 40)",
			"--stdin", `{n} {T}\n`, "--clock", "thread", "--seed", seed, "--trials", trials, "--repeat", reps, "-o", filepath.Join(dir, out))
		if code != 0 {
			t.Fatalf("trace %s: exit %d\n%s", build, code, stderr)
		}
	}
	trace("base", "train", "1", "10", "4")
	trace("base", "same", "2", "3", "1")
	trace("slow", "slow", "2", "3", "1")
	model := filepath.Join(dir, "heat.model")
	if _, stderr, code := runFragprof(t, "model", "build", filepath.Join(dir, "train"), "--holdout", "0", "-o", model); code != 0 {
		t.Fatalf("model build: exit %d\n%s", code, stderr)
	}
	check := func(set string, extra ...string) (checkReport, string, int) {
		t.Helper()
		out, stderr, code := runFragprof(t, append([]string{"model", "check", model, filepath.Join(dir, set), "--json"}, extra...)...)
		var rep checkReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s%s", err, out, stderr)
		}
		return rep, out, code
	}
	sweep := func(d predict.Deviation) bool {
		return d.From == "sweep" && d.To == "residual" && strings.HasSuffix(d.FromPlace, "/heat.c:32") && strings.HasSuffix(d.ToPlace, "/heat.c:37")
	}

	// The unchanged build: both phases tested, each against the other (and
	// residual → end, the last residual, against the sweeps, where it takes 5%
	// of the time). At γ = 0.99 no time can be flagged with 40 training runs
	// (1/41 > 0.01/2): the exit status does not depend on this machine's load.
	for _, extra := range [][]string{nil, {"--absolute"}} {
		rep, out, code := check("same", append([]string{"--gamma", "0.99"}, extra...)...)
		if code != 0 || rep.Deviating != 0 || len(rep.Runs) != 3 {
			t.Fatalf("unchanged runs %v: exit %d\n%s", extra, code, out)
		}
		for _, rc := range rep.Runs {
			want := len(rc.Times)
			if extra != nil {
				want++ // and the run's speed
			}
			if len(rc.Times) < 2 || rc.ArcsTested != want || rc.Speed == nil || !(rc.Speed.Ratio > 0) {
				t.Errorf("%s %v: %d times, %d tests, speed %+v", rc.Run, extra, len(rc.Times), rc.ArcsTested, rc.Speed)
			}
			// A ratio near 1 is asked of the arcs taken many times in a run;
			// one transition (residual → end) can be stretched any amount by
			// a preemption on a loaded machine.
			for _, d := range rc.Times {
				if (d.Count > 1 && !(d.Ratio > 0.5 && d.Ratio < 2)) || !(d.Ratio > 0) || d.Relative != (d.Alone > 0) {
					t.Errorf("%s: %+v", rc.Run, d)
				}
			}
		}
	}

	// The sweep about three times slower: flagged at γ = 0.9, sweep → residual
	// named, slower. (40 training runs resolve p-values down to 1/41, against
	// α′ = 0.1/3: the slowed arc must lie beyond every training run, so the
	// slowdown is far beyond their scatter on a loaded machine. Another arc's
	// time may be flagged too, where it is tested alone: at γ = 0.9 a run of the
	// unchanged program is, one time in ten; but not residual → sweep as faster
	// against the rest of the run, which the sweep's change explains.)
	rep, out, code := check("slow")
	if code != 1 || rep.Deviating != 3 {
		t.Fatalf("slowed sweep: exit %d, %d of %d runs deviate\n%s", code, rep.Deviating, len(rep.Runs), out)
	}
	for _, rc := range rep.Runs {
		named := 0
		for _, d := range rc.Deviations {
			switch {
			case sweep(d) && d.Kind == "time" && d.Ratio > 1.2:
				named++
			case d.Kind != "time" || d.Relative && d.Ratio < 1:
				t.Errorf("%s: %s", rc.Run, d.String())
			}
		}
		if named != 1 {
			t.Errorf("%s: deviations %+v, notes %q", rc.Run, rc.Deviations, rc.Notes)
		}
	}
	text, _, _ := runFragprof(t, "model", "check", model, filepath.Join(dir, "slow"))
	if !strings.Contains(text, "3 of 3 runs deviate") || !strings.Contains(text, "/heat.c:32) → residual (") || !strings.Contains(text, "time tests: ") {
		t.Errorf("slowed sweep, the text:\n%s", text)
	}
}
