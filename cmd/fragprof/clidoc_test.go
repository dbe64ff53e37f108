package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// cliDoc renders the help of every command as the Markdown of docs/cli.md.
func cliDoc() string {
	var sb strings.Builder
	sb.WriteString("# fragprof command-line reference\n\n")
	sb.WriteString("Generated from the commands' own help by `go test ./cmd/fragprof -run TestCLIDoc -update`;\n")
	sb.WriteString("a test keeps this page in step with `fragprof help`.\n")
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	root := newRoot(e)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		sb.WriteString("\n## " + c.CommandPath() + "\n\n```\n")
		var b bytes.Buffer
		c.SetOut(&b)
		c.Help()
		sb.WriteString(strings.TrimRight(b.String(), "\n") + "\n```\n")
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return sb.String()
}

func TestCLIDoc(t *testing.T) {
	got := cliDoc()
	if *updateDocs {
		if err := os.WriteFile("../../docs/cli.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("../../docs/cli.md")
	if err != nil || string(want) != got {
		t.Errorf("docs/cli.md is out of date with the commands' help: run go test ./cmd/fragprof -run TestCLIDoc -update")
	}
}
