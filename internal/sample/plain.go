// This file implements the unsampled reference run used to measure overhead.

package sample

// Plain runs the target without tracing (with the same address-space layout as a
// traced run) and returns its wall and CPU time and exit status.
func Plain(t Target) (PlainRun, error) { return runPlain(t) }
