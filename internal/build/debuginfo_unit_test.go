package build

import (
	"testing"
)

func TestWantsDebug(t *testing.T) {
	cases := []struct {
		flags []string
		want  bool
	}{
		{nil, false},
		{[]string{"-O2", "-I", "inc"}, false},
		{[]string{"-g"}, true},
		{[]string{"-g3"}, true},
		{[]string{"-ggdb"}, true},
		{[]string{"-gline-tables-only"}, true},
		{[]string{"-gdwarf-4"}, true},
		{[]string{"-g", "-g0"}, false},
		{[]string{"-g0", "-g2"}, true},
		{[]string{"-gsplit-dwarf"}, false},
		{[]string{"-gno-column-info"}, false},
	}
	for _, c := range cases {
		if got := WantsDebug(c.flags); got != c.want {
			t.Errorf("WantsDebug(%q) = %v, want %v", c.flags, got, c.want)
		}
	}
}
