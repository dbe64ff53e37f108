// This file reads the profile files that show, merge, diff, export, pgo, report and
// freq --from take: profile files, or dump files written for FRAGPROF_OUT.

package main

import (
	"fmt"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/profile"
)

// readProfile reads path, a profile file or a dump file (dump.ReadProfile: the
// dump's counts made a profile as count makes its run's), and prints on stderr the
// warnings on a dump's counts that count prints on its run's.
func readProfile(e *env, path string) (*profile.Profile, error) {
	p, warnings, err := dump.ReadProfile(path)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "fragprof: warning: %s: %s\n", path, w)
	}
	return p, nil
}
