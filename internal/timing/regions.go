// This file checks region fragments against the program before anything runs.

package timing

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
)

// regionPrefix opens the name of every region call site in a program: fragprof.h's
// FP_BEGIN("NAME") and FP_END("NAME") store the string literal "region:NAME".
const regionPrefix = "region:"

// Regions returns the names of the regions whose FP_BEGIN or FP_END the executable
// at path holds (sorted, without "region:"): the string literals of their call sites,
// each ended by a NUL byte.
func Regions(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for rest := data; ; {
		k := bytes.Index(rest, []byte(regionPrefix))
		if k < 0 {
			break
		}
		rest = rest[k+len(regionPrefix):]
		end := bytes.IndexByte(rest, 0)
		if end <= 0 || end > 256 {
			continue
		}
		if name := string(rest[:end]); printable(name) {
			seen[name] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

func printable(s string) bool {
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// CheckRegions returns an error naming the first region fragment of frags that the
// executable at path (built from what) has no call site of, and the regions it has:
// such a fragment would never run, and the measurement would say so only after its
// every repetition.
func CheckRegions(path, what string, frags []Fragment) error {
	var names []string
	loaded := false
	for _, f := range frags {
		if f.Kind != RegionFrag {
			continue
		}
		if !loaded {
			var err error
			if names, err = Regions(path); err != nil {
				return err
			}
			loaded = true
		}
		if i := sort.SearchStrings(names, f.Name); i < len(names) && names[i] == f.Name {
			continue
		}
		has := "it marks no region"
		if len(names) > 0 {
			has = "the regions it marks: " + strings.Join(names, ", ")
		}
		return fmt.Errorf("--fragment %s: %s has no FP_BEGIN(%q) or FP_END(%q) (%s); mark the region with them (#include \"fragprof.h\"), or time func:NAME",
			f, what, f.Name, f.Name, has)
	}
	return nil
}
