//go:build integration

package main

// This file holds the real-browser test of the HTML report: headless Chromium
// (Debian's chromium package, which scripts/deps.sh installs) driven through the
// DevTools protocol by chromedp.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds the browser: $FRAGPROF_CHROMIUM, or Debian's chromium in $PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FRAGPROF_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium: the report's browser test needs it (apt-get install chromium; scripts/deps.sh does), " +
		"or name a Chrome in $FRAGPROF_CHROMIUM")
	return ""
}

// browser starts a headless Chromium with a fresh profile and no background
// traffic, and returns a chromedp context for one tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1366, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancel)
	// Start the browser now, without a deadline (one would stop the browser).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", chromium(t), err)
	}
	return ctx
}

// pageWatch records what a page must not do: fetch anything from the network, or
// throw.
type pageWatch struct {
	mu       sync.Mutex
	requests []string
	errors   []string
}

func watch(t *testing.T, ctx context.Context) *pageWatch {
	w := &pageWatch{}
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") {
				w.mu.Lock()
				w.requests = append(w.requests, u)
				w.mu.Unlock()
			}
		case *runtime.EventExceptionThrown:
			w.mu.Lock()
			w.errors = append(w.errors, fmt.Sprintf("%s %s", ev.ExceptionDetails.Text, ev.ExceptionDetails.Exception.Description))
			w.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *pageWatch) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.requests) > 0 {
		t.Errorf("the page fetched %v: it must be self-contained", w.requests)
	}
	if len(w.errors) > 0 {
		t.Errorf("the page's script threw: %v", w.errors)
	}
}

// eval runs a JavaScript expression under a deadline and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// screenshotPath is where TestReportBrowser leaves its screenshot.
func screenshotPath() string {
	if p := os.Getenv("FRAGPROF_SCREENSHOT"); p != "" {
		return p
	}
	return filepath.Join(os.TempDir(), "fragprof-report-newton.png")
}

// TestReportBrowser opens the report of Newton's estimates in headless Chromium:
// every function's graph must be drawn with one node per block, a click on the loop
// body must show its panel with its convergence plot, the colour mode must switch,
// and nothing may be fetched from the network or throw. It saves a screenshot
// ($FRAGPROF_SCREENSHOT, or fragprof-report-newton.png in the temporary directory).
// Then it opens a page whose source holds "</script><script>…" and checks it shows
// as text.
func TestReportBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED under -short: the browser test runs in 'make test'")
	}
	dir := t.TempDir()
	est, page := filepath.Join(dir, "est.json"), filepath.Join(dir, "newton.html")
	if _, stderr, code := reportCLI(t, "", append(newtonFreqArgs, "--json", "-o", est, "--report", page)...); code != 0 {
		t.Fatalf("freq: exit %d\n%s", code, stderr)
	}
	// The blocks the estimation reported, per function: what the graphs must show.
	var res struct {
		Functions []struct {
			Name   string
			Blocks []struct{ Label string }
		}
	}
	data, err := os.ReadFile(est)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, f := range res.Functions {
		want[f.Name] = len(f.Blocks)
	}
	if want["nsqrt"] != 6 || want["main"] != 4 {
		t.Fatalf("freq reported blocks %v, want nsqrt 6, main 4", want)
	}
	// Base: the same estimate, so that the colour mode can be switched.
	cmp := filepath.Join(dir, "cmp.html")
	if _, stderr, code := reportCLI(t, "", "report", est, "--base", est, "-o", cmp); code != 0 {
		t.Fatalf("report --base: exit %d\n%s", code, stderr)
	}

	start := time.Now()
	ctx := browser(t)
	w := watch(t, ctx)
	do(t, ctx, "opening the report", chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("svg.cfg-svg")))

	got := eval[map[string]int](t, ctx, `(() => {
		const out = {};
		for (const s of document.querySelectorAll('section.func'))
			out[s.dataset.func] = s.querySelectorAll('svg.cfg-svg g.node.blk').length;
		return out;
	})()`)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("graph nodes per function %v, want %v", got, want)
	}
	id := eval[string](t, ctx, `(() => {
		const g = [...document.querySelectorAll('section.func[data-func="nsqrt"] g.node.blk')]
			.find(g => g.querySelector('text') && g.querySelector('text').textContent.trim() === 'do.body');
		return g ? g.id : '';
	})()`)
	if !strings.HasPrefix(id, "n-") {
		t.Fatalf("no node labelled do.body in nsqrt's graph (got %q)", id)
	}
	ref := strings.TrimPrefix(id, "n-")
	if vis := eval[bool](t, ctx, `getComputedStyle(document.getElementById('d-`+ref+`')).display !== 'none'`); vis {
		t.Errorf("do.body's panel shows before any click")
	}
	do(t, ctx, "clicking do.body", chromedp.Click(chromedp.ID(id)),
		chromedp.WaitVisible(chromedp.CSS("#d-"+ref+" svg.plot.convergence")))
	panel := eval[struct {
		Title    string
		Selected bool
		Hash     string
		Paths    int
		Rows     int
	}](t, ctx, `(() => {
		const d = document.getElementById('d-`+ref+`');
		return {
			Title: d.querySelector('h3').textContent,
			Selected: document.getElementById('`+id+`').classList.contains('selected'),
			Hash: location.hash,
			Paths: d.querySelectorAll('svg.plot.convergence path').length,
			Rows: d.querySelectorAll('table.src tr').length,
		};
	})()`)
	if !strings.Contains(panel.Title, "do.body") || !panel.Selected || panel.Hash != "#"+ref || panel.Paths == 0 || panel.Rows != 3 {
		t.Errorf("after the click: %+v; want do.body's panel (3 source lines, a drawn plot), the node selected, #%s", panel, ref)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(screenshotPath(), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", screenshotPath())
	w.check(t)

	// The colour mode of a comparison.
	do(t, ctx, "opening the comparison", chromedp.Navigate("file://"+cmp), chromedp.WaitVisible(chromedp.CSS("svg.cfg-svg")),
		chromedp.Click(chromedp.CSS(`input[name=colour][value=diff]`)))
	fill := eval[string](t, ctx, `document.querySelector('#`+id+` path, #`+id+` polygon').getAttribute('fill')`)
	if fill != "#f7f7f7" {
		t.Errorf("in the change mode, do.body (unchanged) is filled %s, want #f7f7f7", fill)
	}
	w.check(t)

	// Escaping, as the browser sees it.
	evilC := filepath.Join(dir, "evil.c")
	const evil = `</script><script>window.pwned = 1</script><b>bold</b>`
	os.WriteFile(evilC, []byte("int main(void) {\n  puts(\""+evil+"\");\n  return 0;\n}\n"), 0o644)
	evilJSON := fmt.Sprintf(`{"counters": 1, "runs": 1, "functions": [{"name": "main%s", "file": %q, "line": 1,
		"blocks": [{"id": 0, "label": "entry", "lines": [1, 2, 3], "start": "%s:1:1", "count": 1}], "edges": []}]}`,
		strings.ReplaceAll(evil, `"`, `\"`), evilC, evilC)
	evilPage := filepath.Join(dir, "evil.html")
	os.WriteFile(filepath.Join(dir, "evil.json"), []byte(evilJSON), 0o644)
	if _, stderr, code := reportCLI(t, "", "report", filepath.Join(dir, "evil.json"), "-o", evilPage); code != 0 {
		t.Fatalf("report of evil.json: exit %d\n%s", code, stderr)
	}
	do(t, ctx, "opening the evil page", chromedp.Navigate("file://"+evilPage), chromedp.WaitVisible(chromedp.CSS("svg.cfg-svg")))
	ev := eval[struct {
		Scripts int
		Pwned   bool
		Bold    int
		Source  bool
		Graph   bool
		Name    bool
	}](t, ctx, `({
		Scripts: document.querySelectorAll('script').length,
		Pwned: window.pwned !== undefined,
		Bold: document.querySelectorAll('b').length,
		Source: [...document.querySelectorAll('table.src td.text')].some(td => td.textContent.includes('puts("`+strings.ReplaceAll(evil, `"`, `\"`)+`")')),
		Graph: [...document.querySelectorAll('svg.cfg-svg text')].some(x => x.textContent.includes('</script><script>')),
		Name: document.querySelector('section.func').dataset.func === 'main`+strings.ReplaceAll(evil, `"`, `\"`)+`',
	})`)
	if ev.Scripts != 2 || ev.Pwned || ev.Bold != 0 || !ev.Source || !ev.Graph || !ev.Name {
		t.Errorf("the page of a source holding %q: %+v; want 2 scripts, not pwned, no <b>, the text shown in the source view and in the graph", evil, ev)
	}
	w.check(t)
	t.Logf("browser part: %v", time.Since(start).Round(time.Millisecond))
}
