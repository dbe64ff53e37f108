// This file reads the executable mappings of a process.

package sample

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/hotcfg"
)

func procPath(pid int, name string) string { return fmt.Sprintf("/proc/%d/%s", pid, name) }

// readMaps returns the executable file mappings of pid from /proc/pid/maps.
func readMaps(pid int) (hotcfg.Maps, error) {
	b, err := os.ReadFile(procPath(pid, "maps"))
	if err != nil {
		return nil, err
	}
	return parseMaps(string(b)), nil
}

// parseMaps returns the executable file mappings listed in text (the format of
// /proc/PID/maps).
func parseMaps(text string) hotcfg.Maps {
	var out hotcfg.Maps
	for _, line := range strings.Split(text, "\n") {
		// 555555554000-555555555000 r-xp 00001000 fd:01 1234   /path
		fs := strings.Fields(line)
		if len(fs) < 6 || !strings.Contains(fs[1], "x") || !strings.HasPrefix(fs[5], "/") {
			continue
		}
		se := strings.SplitN(fs[0], "-", 2)
		if len(se) != 2 {
			continue
		}
		start, err1 := strconv.ParseUint(se[0], 16, 64)
		end, err2 := strconv.ParseUint(se[1], 16, 64)
		off, err3 := strconv.ParseUint(fs[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out.Add(hotcfg.Mapping{Start: start, End: end, Offset: off, Path: strings.Join(fs[5:], " ")})
	}
	return out
}
