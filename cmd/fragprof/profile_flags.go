// This file holds the flags of the collecting commands that concern the profile file
// (--profile, --continuous) and what they do after a run.

package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/profile"
)

// profileFlags are --profile and --continuous.
type profileFlags struct {
	file       string
	continuous bool
}

func (f *profileFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.file, "profile", "", "also write the counts to the profile file `FILE` (docs/profile-format.md), for merge, show, export, diff and pgo")
	fs.BoolVar(&f.continuous, "continuous", false, "keep the counters in a file mapped into the program's memory, so that counts survive SIGKILL and _exit() (like LLVM's continuous mode)")
}

// env returns what to add to the program's environment.
func (f *profileFlags) env() []string {
	if f.continuous {
		return []string{"FRAGPROF_CONTINUOUS=1"}
	}
	return nil
}

// programIdentity is the identity of the program built at bin from srcs (or given
// with --binary, when srcs is empty): the files the user named, and the binary's
// build-id. Every command that writes a profile sets it (docs/profile-format.md).
func programIdentity(bin string, srcs []string) profile.Identity {
	name := strings.Join(srcs, " ")
	if name == "" {
		name = bin
	}
	return profile.Identity{Name: name, BuildID: profile.ReadBuildID(bin)}
}

// save prints the dump's warnings and writes the profile file, if asked.
func (f *profileFlags) save(e *env, d *dump.Dump, p *profile.Profile) error {
	for _, w := range d.Warnings {
		fmt.Fprintf(e.stderr, "fragprof: warning: %s\n", w)
	}
	if f.file == "" {
		return nil
	}
	if err := p.WriteFile(f.file); err != nil {
		return fmt.Errorf("writing the profile: %w", err)
	}
	return nil
}
