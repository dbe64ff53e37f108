package harness

import (
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/dist"
)

// TestCheckInputs: a function is studied from C files, with inputs bound by name,
// on a program not simplified; each other way is refused naming its flag.
func TestCheckInputs(t *testing.T) {
	if err := CheckInputs("", &dist.File{}, false); err != nil {
		t.Errorf("C files, named inputs: %v", err)
	}
	for _, c := range []struct {
		binary     string
		in         *dist.File
		simplified bool
		want       string
	}{
		{"./prog", &dist.File{Stdin: &dist.Template{}}, true, "not --binary"},
		{"", &dist.File{Stdin: &dist.Template{}}, true, "--stdin, --arg and --file do not apply"},
		{"", &dist.File{Args: []*dist.Template{{}}}, false, "--stdin, --arg and --file do not apply"},
		{"", &dist.File{Files: []dist.NamedTemplate{{}}}, false, "--stdin, --arg and --file do not apply"},
		{"", &dist.File{}, true, "--func and --simplified do not go together"},
	} {
		if err := CheckInputs(c.binary, c.in, c.simplified); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %+v %v: %v, want an error saying %q", c.binary, c.in, c.simplified, err, c.want)
		}
	}
}
