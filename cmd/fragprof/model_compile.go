// This file implements `fragprof model compile` and `fragprof model lib`: a
// model for the program itself, through the C API of fragprof_model.h.

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/predict"
)

func newModelCompileCmd(e *env) *cobra.Command {
	var out, name string
	c := &cobra.Command{
		Use:   "compile MODEL -o FILE",
		Short: "Turn a model into C (FILE.c) or its compiled form (FILE.fpm) for the program's own use",
		Long: `Compile writes a model for the C API of fragprof_model.h, by which a C or C++
program queries its own model (docs/predict.md, "In the program"):

  -o FILE.c    a C source that compiles the model into the program; it defines
               int fp_model_open_NAME(fp_model **out) (NAME: --name, "model")
  -o FILE.fpm  the model's compiled form, which the program loads at run time
               with fp_model_load("FILE.fpm", &m) (it loads the model file
               itself too; the compiled form is smaller and quicker to read)

Either answers as 'fragprof model predict' does, to rounding: the graph, rules,
formulas, calibration, direct models and the chosen predictor's interval are
all in it. Link the program with libfragprof_model.a ('fragprof model lib') and
-lm; 'fragprof cc' links it by itself.

Examples:
  fragprof model compile bru.model -o bru_model.c --name bru
  fragprof model compile bru.model -o bru.fpm`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return usagef("give the output file: -o FILE.c or -o FILE.fpm")
			}
			if ext := filepath.Ext(out); ext != ".c" && ext != ".fpm" {
				return usagef("-o %s: name a C file (.c) or a compiled model (.fpm)", out)
			}
			m, err := predict.ReadFile(args[0])
			if err != nil {
				return err
			}
			var data []byte
			switch filepath.Ext(out) {
			case ".c":
				data, err = m.CSource(name, filepath.Base(args[0]))
				if err != nil && strings.HasPrefix(err.Error(), "--name") {
					return usagef("%v", err)
				}
			case ".fpm":
				var b bytes.Buffer
				err = m.WriteRuntime(&b)
				data = b.Bytes()
			}
			if err != nil {
				return fmt.Errorf("%s: cannot compile: %v", args[0], err)
			}
			if err := atomicfile.Write(out, data); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %s (%d bytes)\n", out, len(data))
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "the `FILE` to write: .c (C source) or .fpm (compiled model)")
	c.Flags().StringVar(&name, "name", "model", "with -o FILE.c, the model's C name: fp_model_open_`NAME`")
	return c
}

func newModelLibCmd(e *env) *cobra.Command {
	var dir, cc string
	c := &cobra.Command{
		Use:   "lib -d DIR",
		Short: "Write the C API's header, source and static library for a plain C/C++ build",
		Long: `Lib writes into DIR the C API by which a program queries its own model
(docs/predict.md, "In the program"): fragprof_model.h, fp_model.c and
libfragprof_model.a, built with --cc. The library needs libc, libm and pthreads
only.

Examples:
  fragprof model lib -d fpmodel/
  cc -O2 -I fpmodel prog.c bru_model.c fpmodel/libfragprof_model.a -lm -pthread -o prog
  g++ -O2 -I fpmodel prog.cc bru_model.c ...   (bru_model.c compiled as C: gcc -c)

Programs built by 'fragprof cc' are linked with it already.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if dir == "" {
				return usagef("give the directory: -d DIR")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := build.WriteModelLib(bg(), dir, cc, "libfragprof_model.a"); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %s\n", filepath.Join(dir, "libfragprof_model.a"))
			return nil
		},
	}
	c.Flags().StringVarP(&dir, "dir", "d", "", "the `DIR` to write the header, source and library into")
	c.Flags().StringVar(&cc, "cc", "cc", "the C compiler that builds the library")
	return c
}
