// This file builds libfragprof_model.a, the C library of fragprof_model.h (a
// program's own prediction model), and keeps it in the cache beside the runtime.

package build

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/cachedir"
	fpruntime "github.com/fragprof/fragprof/runtime"
)

// ModelLib returns the path of libfragprof_model.a compiled by this toolchain,
// building it on first use. Linked after a program's objects, it adds only what
// the program calls (nothing when it calls no fp_model_ function).
func (t *Toolchain) ModelLib(ctx context.Context) (string, error) {
	key := [][]byte{[]byte(t.Clang), []byte(t.Version), fpruntime.ModelHeader, fpruntime.ModelSource}
	return cachedir.Entry("libfragprof_model", ".a", key, func(tmp string) (string, error) {
		return filepath.Join(tmp, "libfragprof_model.a"), WriteModelLib(ctx, tmp, t.Clang, "libfragprof_model.a")
	})
}

// WriteModelLib writes fragprof_model.h and fp_model.c into dir and builds
// dir/lib (a static library) from them with the C compiler cc and the archiver
// that comes with it (llvm-ar beside clang, else ar).
func WriteModelLib(ctx context.Context, dir, cc, lib string) error {
	if err := atomicfile.Write(filepath.Join(dir, "fragprof_model.h"), fpruntime.ModelHeader); err != nil {
		return err
	}
	src := filepath.Join(dir, "fp_model.c")
	if err := atomicfile.Write(src, fpruntime.ModelSource); err != nil {
		return err
	}
	obj := filepath.Join(dir, "fp_model.o")
	out, err := exec.CommandContext(ctx, cc, "-std=c11", "-D_GNU_SOURCE", "-O2", "-fPIC", "-I", dir, "-c", src, "-o", obj).CombinedOutput()
	if err != nil {
		return fmt.Errorf("compiling the model library with %s: %v\n%s", cc, err, out)
	}
	ar := "ar"
	if p, err := exec.LookPath(filepath.Join(filepath.Dir(cc), "llvm-ar")); err == nil && strings.Contains(filepath.Base(cc), "clang") {
		ar = p
	}
	path := filepath.Join(dir, lib)
	os.Remove(path)
	if out, err := exec.CommandContext(ctx, ar, "rcs", path, obj).CombinedOutput(); err != nil {
		return fmt.Errorf("archiving the model library with %s: %v\n%s", ar, err, out)
	}
	return os.Remove(obj)
}
