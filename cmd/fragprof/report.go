// This file implements `fragprof report`, and the --report flag of the collecting
// commands.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/internal/report"
	htmlreport "github.com/fragprof/fragprof/internal/report/html"
	"github.com/fragprof/fragprof/profile"
)

func newReportCmd(e *env) *cobra.Command {
	var out, addr, base, dot string
	var sourcePath []string
	var noBrowser bool
	c := &cobra.Command{
		Use:   "report FILE [-o OUT.html | --http ADDR] [--base OTHER]",
		Short: "Make the HTML page of a result: CFG heat maps, convergence plots, annotated source, timing histograms",
		Long: `Report turns a result into one self-contained HTML page — scripts, styles, graphs
and plots inlined, nothing fetched when it is viewed — to open in a browser, mail,
or print:

  - per function, the CFG drawn by Graphviz (dot -Tsvg), every block coloured by its
    frequency on one logarithmic scale (with a legend) and labelled with its source
    lines, an excerpt of its code and its value (a frequency estimate ± the
    half-width of its interval, or a count); edges are drawn as wide as their flow
    and labelled with the branch taken and its probability. Constant blocks have a
    dashed border, unseen ones a dotted one, rare and inadequate ones a thick
    dotted purple one, unconverged ones a thick dashed blue one;
  - a panel, filled by clicking a block: its source lines, its numbers, its
    predecessors and successors with their probabilities and, for an estimate, the
    convergence plot of the estimate and its interval against the number of trials;
  - the source files with each line's count or frequency in the margin, hot lines
    highlighted and lines that never ran in red, like gcovr's HTML;
  - for timing results, per fragment the histogram of its times (Sturges bins) with
    the interval of the mean, the cut threshold and the cut outliers marked, and for
    a composition the computed time beside the measured one.

FILE is any result fragprof writes, recognised by its content: a profile file
(.fpp: 'count --profile', 'merge'), or the JSON of 'freq --json', 'count --json',
'cfg --format json', 'hotcfg' (the hot CFG, drawn the same way), 'time --json' or
'compose --json'. 'freq' and 'count' also write the page directly with --report.

--base OTHER compares FILE with another result of the same program (say, under
another input model): every block gets its difference per run, the blocks can be
coloured by their change instead of their value, and a table lists the blocks that
moved most. Estimates count as different when the difference exceeds the half-width
of its interval, √(h₁² + h₂²); counts are exact.

The page goes to stdout, or to -o FILE (written atomically). With --http ADDR (also
spelt -http, as in pprof) it is served instead, on the loopback interface when ADDR
names no host (":8080"), and remade from FILE on every reload; the URL is printed and,
when stdout is a terminal, opened in the browser (--no-browser: not). Ctrl-C stops.

Without Graphviz's dot the page says so and lists each function's blocks instead of
drawing them. Source files are read relative to the current directory, as the
compiler was given them, then under each --source-path DIR.

The page's data is embedded as JSON in <script type="application/json"
id="fragprof-data"> (docs/report.md) for scripts to read back.

Examples:
  fragprof freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' \
      --eps 0.3 --json -o est.json --report est.html
  fragprof report est.json -o est.html
  fragprof count prog.c --profile run.fpp < input && fragprof report run.fpp -o run.html
  fragprof report run.fpp -http :8080
  fragprof report est-new.json --base est-old.json -o changes.html
  fragprof time examples/lab.c --fragment program --arg A --arg 7 --json -o t.json && fragprof report t.json -o t.html`,
		// Flags are parsed in RunE, so that pprof's spelling -http works.
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if err := c.Flags().Parse(pprofFlags(args)); err != nil {
				if errors.Is(err, pflag.ErrHelp) {
					return c.Help()
				}
				return usagef("report: %v", err)
			}
			if help, _ := c.Flags().GetBool("help"); help {
				return c.Help()
			}
			args = c.Flags().Args()
			if len(args) != 1 {
				return usagef("report: name one result file (got %d)", len(args))
			}
			if out != "" && addr != "" {
				return usagef("report: give -o or --http, not both")
			}
			if err := checkOutputs(c, args); err != nil { // its flags were not parsed before
				return err
			}
			src := sourceReader(sourcePath)
			opts := htmlreport.Options{Dot: dot, Warn: htmlWarn(e)}
			build := func() ([]byte, error) {
				p, err := loadPage(e, args[0], src)
				if err != nil {
					return nil, err
				}
				if base != "" {
					b, err := loadPage(e, base, src)
					if err != nil {
						return nil, err
					}
					if err := p.CompareWith(b, base, args[0]); err != nil {
						return nil, fmt.Errorf("report: %v", err)
					}
				}
				return htmlreport.Render(p, opts)
			}
			page, err := build()
			if err != nil {
				return err
			}
			if addr != "" {
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return serveReport(ctx, e, addr, args[0], build, func(url string) {
					if !noBrowser && isTerminal(e.stdout) {
						openBrowser(url)
					}
				})
			}
			if out == "" {
				_, err := e.stdout.Write(page)
				return err
			}
			return writeReport(e, out, func(w io.Writer) error {
				_, err := w.Write(page)
				return err
			})
		},
	}
	fs := c.Flags()
	fs.StringVarP(&out, "output", "o", "", "write the page to `FILE` (atomically) instead of stdout")
	fs.StringVar(&addr, "http", "", "serve the page at `ADDR` (host:port; loopback when the host is empty, e.g. :8080) instead of writing it")
	fs.StringVar(&base, "base", "", "compare with the result `OTHER`: per-block differences, the blocks that moved most")
	fs.StringArrayVar(&sourcePath, "source-path", nil, "also look for source files under `DIR`; repeatable")
	fs.StringVar(&dot, "dot", "", "the Graphviz `PROGRAM` that draws the graphs (default: dot in $PATH)")
	fs.BoolVar(&noBrowser, "no-browser", false, "with --http, do not open a browser")
	return c
}

// pprofFlags accepts pprof's single-dash spelling of the long flags.
func pprofFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		for _, name := range []string{"http", "base", "output", "source-path", "no-browser", "dot", "help"} {
			if a == "-"+name || strings.HasPrefix(a, "-"+name+"=") {
				a = "-" + a
				break
			}
		}
		out[i] = a
	}
	return out
}

// loadPage reads a result file and builds its page; a dump file is read as every
// command that takes a profile reads it (readProfile).
func loadPage(e *env, file string, src report.Sources) (*htmlreport.Page, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if dump.IsDump(data) {
		p, err := readProfile(e, file)
		if err != nil {
			return nil, err
		}
		return htmlreport.FromProfile(p, src)
	}
	p, err := htmlreport.Decode(data, src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

// sourceReader reads source files as the compiler was given them, then under each
// directory of path (the file's path, then its base name).
func sourceReader(path []string) report.Sources {
	return func(file string) []string {
		if lines := sourceFiles(file); lines != nil {
			return lines
		}
		for _, dir := range path {
			for _, name := range []string{filepath.Join(dir, file), filepath.Join(dir, filepath.Base(file))} {
				if lines := sourceFiles(name); lines != nil {
					return lines
				}
			}
		}
		return nil
	}
}

// writeFreqHTML writes the page of an estimation to file, when one is named (the
// --report flag of freq).
func writeFreqHTML(e *env, file string, f *report.Freq) error {
	return writeHTML(e, file, func() (*htmlreport.Page, error) { return htmlreport.FromFreq(f, sourceFiles) })
}

// writeCountHTML writes the page of counts to file, when one is named (the --report
// flag of count).
func writeCountHTML(e *env, file string, p *profile.Profile) error {
	return writeHTML(e, file, func() (*htmlreport.Page, error) { return htmlreport.FromProfile(p, sourceFiles) })
}

func writeHTML(e *env, file string, page func() (*htmlreport.Page, error)) error {
	if file == "" {
		return nil
	}
	p, err := page()
	if err != nil {
		return err
	}
	return writeReport(e, file, func(w io.Writer) error { return htmlreport.Write(w, p, htmlreport.Options{Warn: htmlWarn(e)}) })
}

// htmlWarn prints on stderr what an HTML page could not do (draw its graphs without
// Graphviz), once per command.
func htmlWarn(e *env) func(string) {
	said := false
	return func(msg string) {
		if !said {
			fmt.Fprintf(e.stderr, "fragprof: warning: report: %s\n", msg)
			said = true
		}
	}
}

// serveReport serves the page at addr until ctx is done. build is called for every
// request of the page, so that a reload shows the file as it is now; ready gets the
// URL once the server listens.
func serveReport(ctx context.Context, e *env, addr, name string, build func() ([]byte, error), ready func(url string)) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("report: --http %q: want HOST:PORT or :PORT", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		page, err := build()
		if err != nil {
			http.Error(w, "fragprof report: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(page)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(e.stdout, "fragprof report: serving %s at %s (Ctrl-C to stop)\n", name, url)
	if ready != nil {
		ready(url)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
		defer stop()
		srv.Shutdown(sctx)
	}()
	err = srv.Serve(ln)
	cancel()
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// openBrowser opens url in the desktop's browser, if there is one; failures are
// silent, as the URL is printed.
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("cmd", "/c", "start", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return
		}
		cmd = exec.Command("xdg-open", url)
	}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
