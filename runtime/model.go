package runtime

import _ "embed"

// ModelSource is the C library behind fragprof_model.h (cmodel/fp_model.c):
// a program's own prediction model, read from `fragprof model compile`'s output
// and interpreted as `fragprof model predict` does. It is built into
// libfragprof_model.a, apart from the runtime, so that a program links it only
// when it calls it.
//
//go:embed cmodel/fp_model.c
var ModelSource []byte

// ModelHeader is fragprof_model.h, the C API of ModelSource.
//
//go:embed c/fragprof_model.h
var ModelHeader []byte
