// This file checks what a run of one function can be given, in the words of the
// freq command's flags.

package harness

import (
	"errors"

	"github.com/fragprof/fragprof/internal/dist"
)

// CheckInputs reports why a function cannot be studied as asked, nil when it can:
// the harness is built from the C files' IR, so not from binary, a program built
// already (""; none); the inputs are bound to parameters and globals by name, so
// in has no stdin, arguments or files; and the program is not simplified (the
// simplification may specialise the function for the program's own calls, IPSCCP,
// which the harness's calls, added later, are not).
func CheckInputs(binary string, in *dist.File, simplified bool) error {
	switch {
	case binary != "":
		return errors.New("--func needs the C files (the harness is built from their IR), not --binary")
	case in.Stdin != nil || len(in.Args) > 0 || len(in.Files) > 0:
		return errors.New("--func binds inputs to parameters and globals by name: --stdin, --arg and --file do not apply")
	case simplified:
		return errors.New("--func and --simplified do not go together: the simplification may specialise the function for its callers in the program, which the harness's calls are not")
	}
	return nil
}
