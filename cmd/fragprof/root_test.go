package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestRootForOneCommand builds, for every subcommand, the tree that a run naming
// it gets (that command alone) and wants the command registered under its own
// name, and its help, and its answer to a bad flag, to be what the whole tree
// gives; a run naming no command, or a mistyped one, gets every command.
func TestRootForOneCommand(t *testing.T) {
	if len(commands) < 10 {
		t.Fatalf("%d commands registered", len(commands))
	}
	for _, c := range commands {
		if got := c.new(&env{}).Name(); got != c.name {
			t.Errorf("command registered as %q is named %q", c.name, got)
			continue
		}
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "--no-such-flag"}} {
			var whole, one bytes.Buffer
			in := strings.NewReader("")
			codeWhole := runTree(func(e *env, _ []string) *cobra.Command { return newRoot(e) }, args, in, &whole, &whole)
			codeOne := runTree(newRootFor, args, in, &one, &one)
			if codeWhole != codeOne || whole.String() != one.String() {
				t.Errorf("fragprof %s: the tree of that command alone gives (%d) %q; the whole tree (%d) %q",
					strings.Join(args, " "), codeOne, one.String(), codeWhole, whole.String())
			}
		}
	}
	for _, args := range [][]string{nil, {"--help"}, {"help"}, {"sampel"}} {
		if n := len(newRootFor(&env{}, args).Commands()); n < len(commands) {
			t.Errorf("fragprof %s: %d commands in the tree, want every one (%d)", strings.Join(args, " "), n, len(commands))
		}
	}
	var whole, tree bytes.Buffer
	codeWhole := runTree(func(e *env, _ []string) *cobra.Command { return newRoot(e) }, []string{"sampel"}, strings.NewReader(""), &whole, &whole)
	code := run([]string{"sampel"}, strings.NewReader(""), &tree, &tree)
	if code != 2 || code != codeWhole || tree.String() != whole.String() || !strings.Contains(tree.String(), "unknown command") {
		t.Errorf("fragprof sampel: exit %d, %q; the whole tree %d, %q; want 2 and an unknown command", code, tree.String(), codeWhole, whole.String())
	}
}
