// This file finds the external tools the oracle needs and says how to install them.

package oracle

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/fragprof/fragprof/internal/build"
)

// InstallHint is the command that installs every tool the oracle needs on Debian.
const InstallHint = "scripts/deps.sh (as root: apt-get install -y clang clang-19 csmith libcsmith-dev gcc g++)"

// Tools are the external programs the oracle runs.
type Tools struct {
	Clang14, Clang16 *build.Toolchain
	Clang19          *build.Toolchain // the newest clang Debian packages: C++ is tested on 14 and 19
	GCC, GXX, Gcov   string
	Csmith           string
}

// FindTools locates clang 14 (clang-14, or a clang whose major version is 14),
// clang 19, gcc, g++, gcov and csmith with csmith.h. Its error names everything missing
// and how to install it.
func FindTools() (*Tools, error) {
	var missing []string
	t := &Tools{}
	t.Clang14 = clangMajor(14, "clang-14", "clang")
	if t.Clang14 == nil {
		missing = append(missing, "clang 14 (Debian package clang)")
	}
	t.Clang19 = clangMajor(19, "clang-19")
	if t.Clang19 == nil {
		missing = append(missing, "clang-19 (Debian package clang-19)")
	}
	look := func(name, pkg string) string {
		p, err := exec.LookPath(name)
		if err != nil {
			missing = append(missing, name+" (Debian package "+pkg+")")
		}
		return p
	}
	t.GCC = look("gcc", "gcc")
	t.GXX = look("g++", "g++")
	t.Gcov = look("gcov", "gcc")
	t.Csmith = look("csmith", "csmith")
	if _, err := os.Stat(CsmithInclude + "/csmith.h"); err != nil {
		missing = append(missing, CsmithInclude+"/csmith.h (Debian package libcsmith-dev)")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s; install with %s", strings.Join(missing, ", "), InstallHint)
	}
	return t, nil
}

// clangMajor returns the first of names that is a clang of the given major version.
func clangMajor(major int, names ...string) *build.Toolchain {
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			continue
		}
		if tc, err := build.NewToolchain(p); err == nil && tc.Major == major {
			return tc
		}
	}
	return nil
}
