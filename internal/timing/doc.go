// Package timing measures how long fragments of a C program take and composes times
// over control flow: the timing guide's protocol (docs/methods.md) as fragprof's `timers`, `time`
// and `compose`.
//
// Fragments are func:NAME (timer calls inserted into the IR by
// instrument.Timers), region:NAME (FP_BEGIN/FP_END of fragprof.h) and the program
// (one whole run, timed from outside). The runtime (runtime/c/timing.c) times the
// outermost activations with the selected [Timer], calibrates the TSC against
// CLOCK_MONOTONIC_RAW, measures its own overhead and reports raw samples in a
// [Record] at exit.
//
// The stages hand on one type each:
//
//	Build (build.go)            C sources → a program with timers (no counters by default)
//	Measure (measure.go)        repetitions on drawn inputs → a [Result]: every fragment's
//	                            samples (overhead subtracted) and the lab protocol's
//	                            statistics (internal/stats), adaptive with RelEps
//	Reduce (reduce.go)          the manual's rules and their exact forms over an [Expr]
//	Chain.Solve (markov.go)     an absorbing Markov chain over a CFG with a profile's
//	                            edge probabilities
//	Compose (compose.go)        a [Scheme]'s computed total against its measured total
//	RunProbe (probe.go)         every timer's resolution and cost (csrc/probe.c)
//
// Rendering lives in internal/report (timing.go); the commands in cmd/fragprof.
package timing
