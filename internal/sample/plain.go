// This file implements the unsampled reference run used to measure overhead.

package sample

import (
	"os/exec"
	"syscall"
	"time"
)

// Plain runs the target without tracing (with the same address-space layout as a
// traced run) and returns its wall time and exit status.
func Plain(t Target) (time.Duration, int, error) {
	var d time.Duration
	code := 0
	err := locked(func() error {
		cmd := exec.Command(t.Path, t.Args...)
		cmd.Env = t.Env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = t.Stdin, t.Stdout, t.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		if !t.ASLR {
			old := personality(0xffffffff)
			personality(old | addrNoRandomize)
			defer personality(old)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return err
		}
		err := cmd.Wait()
		d = time.Since(start)
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
			return nil
		}
		return err
	})
	return d, code, err
}
