// This file implements CPU pinning of the tracer thread: a ptrace stop costs about
// half as much when tracer and tracee share a CPU (no cross-CPU wake-up).

package sample

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinSelf binds the calling (locked) thread to cpu; cpu < 0 unbinds it.
func pinSelf(cpu int) {
	var set unix.CPUSet
	if cpu < 0 {
		for i := 0; i < 1024; i++ {
			set.Set(i)
		}
	} else {
		set.Set(cpu)
	}
	unix.SchedSetaffinity(0, &set)
}

// currentCPU returns the CPU the calling thread runs on.
func currentCPU() int {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		return 0
	}
	st := statFields(b)
	if len(st) > 36 {
		n, _ := strconv.Atoi(st[36])
		return n
	}
	return 0
}

// statFields splits a /proc stat line into the fields after the command name
// (state is the first).
func statFields(b []byte) []string {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	var out []string
	for _, f := range bytes.Fields(b[i+1:]) {
		out = append(out, string(f))
	}
	return out
}

// threadStat returns a thread's state letter and the CPU it last ran on.
func threadStat(pid, tid int) (state byte, cpu int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid))
	if err != nil {
		return 0, 0, false
	}
	f := statFields(b)
	if len(f) < 37 || len(f[0]) == 0 {
		return 0, 0, false
	}
	cpu, _ = strconv.Atoi(f[36])
	return f[0][0], cpu, true
}
