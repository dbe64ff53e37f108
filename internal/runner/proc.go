// This file holds what fragprof reads of the process tree.

package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Descendants returns the process ids of every descendant of pid (its children and
// theirs), read from /proc. A child belongs to the thread that forked it, so every
// thread's list of children is read.
func Descendants(pid int) []int {
	var all []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, c := range strings.Fields(string(data)) {
			var k int
			if _, err := fmt.Sscan(c, &k); err == nil {
				all = append(append(all, k), Descendants(k)...)
			}
		}
	}
	return all
}

// HasDescendant reports whether process pid has a descendant whose command name
// (/proc/PID/comm) is comm.
func HasDescendant(pid int, comm string) bool {
	for _, k := range Descendants(pid) {
		if name, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", k)); err == nil && strings.TrimSpace(string(name)) == comm {
			return true
		}
	}
	return false
}
