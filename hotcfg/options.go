// This file checks the options of a hot CFG's build, in the words of the hotcfg
// command's flags.

package hotcfg

import (
	"errors"
	"fmt"
)

// CheckOutput reports what is wrong with builder algo ("gfc" or "bursts") and
// output format ("json", "dot", "pprof" or "profile"); nil when both are known.
func CheckOutput(algo, format string) error {
	if algo != "gfc" && algo != "bursts" {
		return fmt.Errorf("--algo %q: want gfc or bursts", algo)
	}
	if format != "json" && format != "dot" && format != "pprof" && format != "profile" {
		return fmt.Errorf("--format %q: want json, dot, pprof or profile", format)
	}
	return nil
}

// CheckBuild reports what is wrong with the options of a build from batches: a
// sweep (over Grid) needs compare, an exact graph's file; hot, the share of the
// exact graph's transitions that is its hot part, is in (0, 1]; p's window is
// positive and its recurrence threshold not negative; top (functions, blocks and
// edges listed) and first (batches used) are not negative. The first fault is
// reported, nil when there is none.
func CheckBuild(sweep bool, compare string, hot float64, p Params, top, first int) error {
	switch {
	case sweep && compare == "":
		return errors.New("--sweep needs --compare EXACT")
	case hot <= 0 || hot > 1:
		return fmt.Errorf("--hot %v: want a share in (0, 1]", hot)
	case p.WindowSize <= 0 || p.Recurrent < 0:
		return errors.New("--window must be positive")
	case top < 0:
		return errors.New("--top must be positive")
	case first < 0:
		return errors.New("--first must be positive")
	}
	return nil
}
