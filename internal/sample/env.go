// This file implements the environment that makes a program record itself, with no
// fragprof process in its tree (`fragprof sample --env`): the preloaded library
// writes each process's record at its exit.

package sample

import (
	"fmt"
	"path/filepath"
	"strings"
)

// An EnvVar is one variable of the environment Env returns.
type EnvVar struct{ Name, Value string }

// Env returns the environment that makes every program started with it record
// itself: the in-process sampler library first in LD_PRELOAD (before ldPreload, the
// caller's own, when set), its configuration (FRAGPROF_SAMPLE, with the in-process
// defaults DefaultInterval and DefaultInProcessShare where o gives none), and
// FRAGPROF_SAMPLE_OUT, the absolute path prefix of the records: each process writes
// its own, OUT.<pid>, at its exit (preload/fragprof_sample.c, write_record). The
// library stays in the environment, so the programs a sampled one starts are sampled
// too.
func Env(o Options, stackBytes int, out, ldPreload string) ([]EnvVar, error) {
	if o.Burst <= 0 || o.Burst > 1024 {
		return nil, fmt.Errorf("sample: burst must be in 1..1024 with the in-process sampler")
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval(true)
	}
	if o.Overhead == 0 {
		o.Overhead = DefaultInProcessShare
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	lib, err := PreloadLib()
	if err != nil {
		return nil, err
	}
	preload := lib
	if ldPreload != "" {
		preload += ":" + ldPreload
	}
	return []EnvVar{{"LD_PRELOAD", preload}, {"FRAGPROF_SAMPLE", sampleConfig(o, stackBytes)}, {"FRAGPROF_SAMPLE_OUT", abs}}, nil
}

// Export is v as a POSIX shell export line, the value in single quotes, with each
// single quote in it written as four characters: a quote that closes, a backslash
// and the quote it escapes, a quote that reopens. Eval gives the value back byte
// for byte, whatever it holds.
func (v EnvVar) Export() string {
	return "export " + v.Name + "='" + strings.ReplaceAll(v.Value, "'", `'\''`) + "'"
}
