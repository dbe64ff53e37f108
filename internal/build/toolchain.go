// Package build drives clang: it finds the compiler, emits LLVM IR without optimising,
// instruments it, compiles the result at the requested optimisation level and links
// it with the fragprof runtime. It also implements the drop-in compiler `fragprof cc`.
package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/llvmir"
	"github.com/fragprof/fragprof/internal/tmpdir"
)

// A Toolchain is the clang fragprof uses.
type Toolchain struct {
	Clang   string // path of the clang executable
	Version string // its first --version line
	Major   int    // major version
	// Cxx makes every invocation a C++ one (clang++: --driver-mode=g++): .c files
	// compile as C++ and links add the C++ standard library.
	Cxx bool
}

// CXX returns the toolchain in C++ mode (see Toolchain.Cxx).
func (t *Toolchain) CXX() *Toolchain {
	c := *t
	c.Cxx = true
	return &c
}

// C returns the toolchain in C mode: the runtime and the harness are C.
func (t *Toolchain) C() *Toolchain {
	c := *t
	c.Cxx = false
	return &c
}

// IsCXXSource reports a file name clang compiles as C++ by its extension.
func IsCXXSource(name string) bool {
	for _, ext := range []string{".cc", ".cpp", ".cxx", ".c++", ".cp", ".C", ".CPP", ".CC", ".CXX"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// IsSource reports a file name that fragprof instruments: C or C++ by its extension.
func IsSource(name string) bool { return strings.HasSuffix(name, ".c") || IsCXXSource(name) }

// SameFile tells whether the path out, a file about to be written, names in, an
// existing regular file: the same cleaned absolute path or, through links, the same
// file (os.SameFile). A string that names no file (a -D macro, a template) is never
// the same.
func SameFile(out, in string) bool {
	fb, err := os.Stat(in)
	if in == "" || err != nil || !fb.Mode().IsRegular() {
		return false
	}
	a, errA := filepath.Abs(out)
	b, errB := filepath.Abs(in)
	if errA == nil && errB == nil && a == b {
		return true
	}
	fa, err := os.Stat(out)
	return err == nil && os.SameFile(fa, fb)
}

// TempDir makes a new directory for intermediate files under $TMPDIR (os.TempDir),
// named fragprof-NAME… and reaped if this process dies without removing it
// (tmpdir.Make); when it cannot, the error names $TMPDIR and says what to do.
func TempDir(name string) (string, error) {
	d, err := tmpdir.Make(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("cannot make a directory for intermediate files in %s (TMPDIR): %v: set TMPDIR to a directory you can write in, or unset it to use /tmp", os.TempDir(), err)
	}
	return d, nil
}

// ErrNoClang explains how to get clang.
var ErrNoClang = errors.New("clang not found: install it (Debian/Ubuntu: sudo apt-get install clang) or point FRAGPROF_CLANG at a clang ≥ 14")

var reVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`clang version (\d+)\.`) })

// FindToolchain locates clang: $FRAGPROF_CLANG, else clang on the PATH, else the
// newest clang-N installed. It requires clang ≥ 14.
func FindToolchain() (*Toolchain, error) {
	var candidates []string
	if c := os.Getenv("FRAGPROF_CLANG"); c != "" {
		candidates = []string{c}
	} else {
		candidates = []string{"clang"}
		for v := 20; v >= 14; v-- {
			candidates = append(candidates, "clang-"+strconv.Itoa(v))
		}
	}
	for _, c := range candidates {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		return NewToolchain(p)
	}
	if c := os.Getenv("FRAGPROF_CLANG"); c != "" {
		return nil, fmt.Errorf("FRAGPROF_CLANG=%s: not found", c)
	}
	return nil, ErrNoClang
}

// NewToolchain checks the clang at path.
func NewToolchain(path string) (*Toolchain, error) {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", path, err)
	}
	first, _, _ := bytes.Cut(out, []byte("\n"))
	m := reVersion().FindSubmatch(first)
	if m == nil {
		return nil, fmt.Errorf("%s does not look like clang: %q", path, first)
	}
	major, _ := strconv.Atoi(string(m[1]))
	if major < 14 {
		return nil, fmt.Errorf("%s is clang %d; fragprof needs clang ≥ 14", path, major)
	}
	return &Toolchain{Clang: path, Version: string(first), Major: major}, nil
}

// run runs clang with args; its diagnostics go to stderr as they are.
func (t *Toolchain) run(ctx context.Context, stderr io.Writer, args ...string) error {
	_, err := t.runPeak(ctx, stderr, args...)
	return err
}

// runPeak is run that also returns clang's peak resident set size in bytes (0 when
// the system does not say).
func (t *Toolchain) runPeak(ctx context.Context, stderr io.Writer, args ...string) (int64, error) {
	if t.Cxx {
		args = append([]string{"--driver-mode=g++"}, args...)
	}
	cmd := exec.CommandContext(ctx, t.Clang, args...)
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	err := cmd.Run()
	var peak int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = int64(ru.Maxrss) << 10 // kilobytes on Linux
		}
	}
	switch {
	case err == nil:
		return peak, nil
	case ctx.Err() != nil:
		return peak, fmt.Errorf("clang was stopped: %w", context.Cause(ctx))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return peak, fmt.Errorf("clang was killed by %s: %w", unix.SignalName(ws.Signal()), err)
		}
	}
	return peak, fmt.Errorf("clang failed (%w)", err)
}

// OpaquePointers reports whether the IR this clang prints with flags writes pointers
// opaquely (ptr) rather than typed (i8*). It is what clang's version and flags say,
// never a guess from the IR's text: clang ≥ 15 prints opaque pointers unless told
// -Xclang -no-opaque-pointers (clang 15 and 16 only), clang 14 typed pointers unless
// told -Xclang -opaque-pointers; -mllvm -opaque-pointers[=true|false] sets the same
// option. The last such flag wins, as in clang.
func (t *Toolchain) OpaquePointers(flags []string) bool {
	opaque := t.Major >= 15
	for i := 0; i+1 < len(flags); i++ {
		switch flags[i] {
		case "-Xclang":
			switch flags[i+1] {
			case "-opaque-pointers":
				opaque = true
			case "-no-opaque-pointers":
				opaque = false
			}
		case "-mllvm":
			switch flags[i+1] {
			case "-opaque-pointers", "-opaque-pointers=true", "-opaque-pointers=1":
				opaque = true
			case "-opaque-pointers=false", "-opaque-pointers=0":
				opaque = false
			}
		}
	}
	if t.Major >= 17 {
		return true // typed pointers are gone from LLVM 17
	}
	return opaque
}

// IRReaderFlags are the flags that make this clang read back, as IR input, the IR it
// printed with cflags: clang 14 prints opaque pointers when told -Xclang
// -opaque-pointers but reads them only with -mllvm -opaque-pointers.
func (t *Toolchain) IRReaderFlags(cflags []string) []string {
	if t.Major == 14 && t.OpaquePointers(cflags) {
		return []string{"-mllvm", "-opaque-pointers"}
	}
	return nil
}

// ReadIR reads the IR file ll that EmitIR printed with cflags, in the pointer
// dialect this clang prints with those flags.
func (t *Toolchain) ReadIR(ll string, cflags []string) (*llvmir.Module, error) {
	data, err := os.ReadFile(ll)
	if err != nil {
		return nil, err
	}
	return llvmir.ParseDialect(ll, data, t.OpaquePointers(cflags))
}
