// Package runtime embeds the C runtime that fragprof links into instrumented
// programs (c/*.c, compiled as one translation unit: one file per role, in layers
// whose calls only go down, listed in c/fp_internal.h) and the header programs may
// include (c/fragprof.h).
package runtime

import (
	"embed"
	"io/fs"
	"sort"
)

//go:embed c
var files embed.FS

// Files returns the runtime's C sources and headers by name, in name order.
func Files() map[string][]byte {
	out := map[string][]byte{}
	names, _ := fs.Glob(files, "c/*")
	sort.Strings(names)
	for _, n := range names {
		data, _ := files.ReadFile(n)
		out[n[len("c/"):]] = data
	}
	return out
}

// Header is fragprof.h (embedded as its own variable: no copy at start).
//
//go:embed c/fragprof.h
var Header []byte
