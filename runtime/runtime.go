// Package runtime embeds the C runtime that fragprof links into instrumented
// programs (c/fragprof_rt.c) and the header programs may include (c/fragprof.h).
package runtime

import _ "embed"

// Source is the runtime's C source.
//
//go:embed c/fragprof_rt.c
var Source []byte

// Header is fragprof.h.
//
//go:embed c/fragprof.h
var Header []byte
