//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	htmlreport "github.com/fragprof/fragprof/internal/report/html"
)

// newtonFreqArgs are the quick estimation of examples/newton.c the report tests use:
// the signed moment stops after about 31 trials.
var newtonFreqArgs = []string{"freq", "../../examples/newton.c", "--input", "ask = uniform(100, 800)",
	"--stdin", `{ask}\n`, "--eps", "0.3", "--berry-esseen", "signed"}

// pageData reads the data embedded in a page file.
func pageData(t *testing.T, file string) map[string]any {
	t.Helper()
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data, err := htmlreport.Data(page)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReportFreq checks that `freq --report` and `report` on the JSON `freq --json`
// wrote give the same page, and that --base compares.
func TestReportFreq(t *testing.T) {
	dir := t.TempDir()
	est, direct := filepath.Join(dir, "est.json"), filepath.Join(dir, "direct.html")
	if _, stderr, code := reportCLI(t, "", append(newtonFreqArgs, "--json", "-o", est, "--report", direct)...); code != 0 {
		t.Fatalf("freq: exit %d\n%s", code, stderr)
	}
	viaJSON := filepath.Join(dir, "via.html")
	if _, stderr, code := reportCLI(t, "", "report", est, "-o", viaJSON); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	a, b := pageData(t, direct), pageData(t, viaJSON)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("freq --report and report of freq --json differ")
	}
	if a["kind"] != "freq" || len(a["functions"].([]any)) != 2 {
		t.Errorf("page kind %v with %d functions", a["kind"], len(a["functions"].([]any)))
	}
	// Comparison with itself: every difference is 0, no move.
	cmp := filepath.Join(dir, "cmp.html")
	if _, stderr, code := reportCLI(t, "", "report", est, "--base", est, "-o", cmp); code != 0 {
		t.Fatalf("report --base: exit %d\n%s", code, stderr)
	}
	base := pageData(t, cmp)["base"].(map[string]any)
	if moves := base["moves"].([]any); len(moves) != 0 {
		t.Errorf("a result compared with itself moved: %v", moves)
	}
	// To stdout.
	stdout, _, code := reportCLI(t, "", "report", est)
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") {
		t.Errorf("report to stdout: exit %d, %.40q", code, stdout)
	}
}

// TestReportCount checks `count --report` and the report of the profile file that
// `count --profile` wrote: the same page.
func TestReportCount(t *testing.T) {
	dir := t.TempDir()
	fpp, direct := filepath.Join(dir, "run.fpp"), filepath.Join(dir, "direct.html")
	if _, stderr, code := reportCLI(t, "400\n", "count", "../../examples/newton.c", "--profile", fpp, "--report", direct); code != 0 {
		t.Fatalf("count: exit %d\n%s", code, stderr)
	}
	viaFile := filepath.Join(dir, "via.html")
	if _, stderr, code := reportCLI(t, "", "report", fpp, "-o", viaFile); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	a, b := pageData(t, direct), pageData(t, viaFile)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("count --report and report of the profile differ:\n%s\n%s", ja, jb)
	}
	// nsqrt's loop body ran 9 times for 400.
	body := a["functions"].([]any)[0].(map[string]any)["blocks"].([]any)[1].(map[string]any)
	if body["label"] != "do.body" || body["value"] != 9.0 {
		t.Errorf("do.body: %v", body)
	}
}

// TestReportHTTP serves a page on the loopback interface and fetches it.
func TestReportHTTP(t *testing.T) {
	dir := t.TempDir()
	est := filepath.Join(dir, "est.json")
	if _, stderr, code := reportCLI(t, "", append(newtonFreqArgs, "--json", "-o", est)...); code != 0 {
		t.Fatalf("freq: exit %d\n%s", code, stderr)
	}
	src := sourceReader(nil)
	build := func() ([]byte, error) {
		p, err := loadPage(&env{stderr: io.Discard}, est, src)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		err = htmlreport.Write(&buf, p, htmlreport.Options{})
		return buf.Bytes(), err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout bytes.Buffer
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveReport(ctx, &env{stdout: &stdout, stderr: io.Discard}, ":0", est, build, func(u string) { urls <- u })
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not start")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("served at %s, want the loopback interface", url)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !bytes.Contains(page, []byte(`id="fragprof-data"`)) {
		t.Errorf("GET %s: %s %s, %d bytes", url, resp.Status, resp.Header.Get("Content-Type"), len(page))
	}
	if resp, err := http.Get(url + "other"); err != nil || resp.StatusCode != 404 {
		t.Errorf("GET other: %v %v", resp.Status, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	if !strings.Contains(stdout.String(), url) {
		t.Errorf("the URL was not printed: %q", stdout.String())
	}
}
