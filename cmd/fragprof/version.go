// This file implements `fragprof --version`: what a bug report needs to say which
// fragprof, built from which commit by which Go, drives which clang.

package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// writeVersion prints fragprof's version (the module version, "(devel)" for a build
// from a work tree), the commit and its time with "+dirty" for uncommitted changes
// (from debug.ReadBuildInfo's vcs settings), the Go version and platform, and the
// clang fragprof would use, or why none was found.
func writeVersion(w io.Writer) {
	version, commit, when, dirty := "(unknown)", "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	fmt.Fprintf(w, "fragprof %s\n", version)
	switch {
	case commit == "":
		fmt.Fprintln(w, "commit: unknown (built without version control information)")
	default:
		if dirty {
			commit += "+dirty"
		}
		fmt.Fprintf(w, "commit: %s %s\n", commit, when)
	}
	fmt.Fprintf(w, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if tc, err := toolchain(); err != nil {
		fmt.Fprintf(w, "clang: not found: %v\n", err)
	} else {
		fmt.Fprintf(w, "clang: %s (%s)\n", strings.TrimSpace(tc.Version), tc.Clang)
	}
}
