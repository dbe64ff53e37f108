package cfg

import (
	"strings"
	"testing"
)

func TestDemangle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"main", "main"},
		{"_Z1fi", "f(int)"},
		{"_ZN2ns1fEi", "ns::f(int)"},
		{"_ZN1SD2Ev", "S::~S()"},
		{"_ZN1SD0Ev", "S::~S() [deleting]"},
		{"_Z5clampIiET_S0_S0_S0_", "int clamp<int>(int, int, int)"},
		{"_ZZ4mainENK3$_0clEi", "main::$_0::operator()(int) const"},
		{"_Znotmangled", "_Znotmangled"},
	} {
		if got := Demangle(c.in); got != c.want {
			t.Errorf("Demangle(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMatchNames(t *testing.T) {
	names := []string{"main", "_Z3fibi", "_Z3fibd", "_ZN2ns1fEi", "_Z5clampIiET_S0_S0_S0_"}
	for _, c := range []struct {
		q    string
		want int // matches
		one  string
	}{
		{"main", 1, "main"},
		{"_Z3fibi", 1, "_Z3fibi"},
		{"fib(int)", 1, "_Z3fibi"},
		{"fib( double )", 1, "_Z3fibd"},
		{"fib", 2, ""},
		{"ns::f", 1, "_ZN2ns1fEi"},
		{"ns::f(int)", 1, "_ZN2ns1fEi"},
		{"clamp<int>", 1, "_Z5clampIiET_S0_S0_S0_"},
		{"clamp", 1, "_Z5clampIiET_S0_S0_S0_"},
		{"nothing", 0, ""},
	} {
		m := MatchNames(names, c.q)
		if len(m) != c.want || c.one != "" && m[0] != c.one {
			t.Errorf("MatchNames(%q) = %v", c.q, m)
		}
	}
	p := &Program{}
	for _, n := range names {
		p.Funcs = append(p.Funcs, &Func{Name: n})
	}
	if _, err := p.Lookup("fib"); err == nil || !strings.Contains(err.Error(), "'fib(int)' (_Z3fibi)") || !strings.Contains(err.Error(), "'fib(double)'") {
		t.Errorf("Lookup(fib) error = %v, want both overloads listed", err)
	}
}
