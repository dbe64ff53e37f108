// This file implements the flags that describe a program's inputs, shared by freq,
// time, trace and compose.

package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/dist"
)

// inputFlags describe a program's inputs: the model and the templates that carry
// drawn values into the program.
type inputFlags struct {
	inputs    []string
	modelFile string
	stdin     string
	args      []string
	files     []string
	seed      uint64
}

func (f *inputFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringArrayVar(&f.inputs, "input", nil, "an input and its distribution, `'NAME = DIST [in [lo, hi]]'` (docs/inputs.md); repeatable")
	fs.StringVar(&f.modelFile, "inputs", "", "read inputs, templates and seed from a TOML model `FILE` (docs/inputs.md)")
	fs.StringVar(&f.stdin, "stdin", "", "the program's stdin per trial, a `TEMPLATE` such as '{ask}\\n'")
	fs.StringArrayVar(&f.args, "arg", nil, "one program argument per trial, a `TEMPLATE` such as '-n={n}'; repeatable, in order")
	fs.StringArrayVar(&f.files, "file", nil, "an input file written before each trial, `NAME=TEMPLATE`; repeatable")
	fs.Uint64Var(&f.seed, "seed", 1, "the seed: trial i's inputs depend only on the seed and i")
}

// model assembles the input model: the model file, if any, with --input lines
// replacing or adding definitions and command-line templates replacing the file's.
// Line N in an --input error is the N-th --input flag.
func (f *inputFlags) model(c *cobra.Command) (*dist.File, error) {
	var file *dist.File
	lines := strings.Join(f.inputs, "\n")
	if f.modelFile != "" {
		var err error
		if file, err = dist.ParseFile(f.modelFile); err != nil {
			return nil, err
		}
		if len(f.inputs) > 0 {
			if file, err = file.WithInputs(lines, dist.Options{}); err != nil {
				return nil, usagef("--input: %v", err)
			}
		}
		if file.HasSeed && !c.Flags().Changed("seed") {
			f.seed = file.Seed
		}
	} else {
		m, err := dist.ParseOptions(lines, dist.Options{})
		if err != nil {
			return nil, usagef("--input: %v", err)
		}
		file = &dist.File{Model: m}
	}
	m := file.Model
	if c.Flags().Changed("stdin") {
		t, err := dist.ParseTemplate(f.stdin, m, dist.BackslashEscapes)
		if err != nil {
			return nil, usagef("--stdin: %v", err)
		}
		file.Stdin = t
	}
	if len(f.args) > 0 {
		file.Args = nil
		for _, a := range f.args {
			t, err := dist.ParseTemplate(a, m, dist.BackslashEscapes)
			if err != nil {
				return nil, usagef("--arg %q: %v", a, err)
			}
			file.Args = append(file.Args, t)
		}
	}
	if len(f.files) > 0 {
		file.Files = nil
		for _, nf := range f.files {
			name, text, ok := strings.Cut(nf, "=")
			if !ok || name == "" || strings.Contains(name, "/") {
				return nil, usagef("--file %q: want NAME=TEMPLATE with a plain file name", nf)
			}
			t, err := dist.ParseTemplate(text, m, dist.BackslashEscapes)
			if err != nil {
				return nil, usagef("--file %s: %v", name, err)
			}
			file.Files = append(file.Files, dist.NamedTemplate{Name: name, Template: t})
		}
	}
	return file, nil
}
