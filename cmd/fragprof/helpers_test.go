package main

// This file holds the helpers that the unit tests and the integration tests (the
// files marked //go:build integration) share.

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
	"github.com/spf13/cobra"
)

// newRoot returns the command tree with every subcommand.
func newRoot(e *env) *cobra.Command { return newRootFor(e, nil) }

// writeFiles writes name → text into dir and returns dir.
func writeFiles(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// cli runs fragprof in-process.
func cli(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(stdin), &o, &e)
	return o.String(), e.String(), code
}

// runFragprof runs fragprof in-process.
func runFragprof(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return o.String(), e.String(), code
}

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md and golden files")

// freq runs `fragprof freq --json` in-process and returns the report, the exit
// status and stderr.
func freq(t *testing.T, args ...string) (report.JSONFreq, int, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "est.json")
	var stdout, stderr bytes.Buffer
	code := run(append(append([]string{"freq"}, args...), "--json", "-o", out), strings.NewReader(""), &stdout, &stderr)
	var r report.JSONFreq
	if code == 0 {
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
	}
	return r, code, stderr.String()
}

// reportCLI runs fragprof in-process with stdin and returns stdout, stderr and the
// exit status.
func reportCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}
