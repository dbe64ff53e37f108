// This file holds what fragprof reads of the process tree.

package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HasDescendant reports whether process pid has a descendant (a child, or one of its
// descendants) whose command name (/proc/PID/comm) is comm. A child belongs to the
// thread that forked it, so every thread's list of children is read.
func HasDescendant(pid int, comm string) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, c := range strings.Fields(string(data)) {
			if name, err := os.ReadFile("/proc/" + c + "/comm"); err == nil && strings.TrimSpace(string(name)) == comm {
				return true
			}
			var k int
			if _, err := fmt.Sscan(c, &k); err == nil && HasDescendant(k, comm) {
				return true
			}
		}
	}
	return false
}
