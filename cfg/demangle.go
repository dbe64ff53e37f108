// This file gives functions their source-level names: C++ linkage names (the Itanium
// ABI's _Z...) demangled, every other name as it is.

package cfg

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ianlancetaylor/demangle"
)

var demangled sync.Map // linkage name → source-level name

// Demangle returns the source-level name of a linkage name: a C++ name demangled with
// its parameter types ("ns::f(int)", "S::~S()", "T max<int>(int, int)"), a C name
// or anything the demangler does not recognise unchanged. It uses
// github.com/ianlancetaylor/demangle, the demangler of pprof and the Go tool chain.
func Demangle(name string) string {
	if len(name) < 2 || name[0] != '_' || name[1] != 'Z' {
		return name
	}
	if v, ok := demangled.Load(name); ok {
		return v.(string)
	}
	d := demangle.Filter(name)
	if d != name && strings.HasSuffix(name, "D0Ev") {
		// The deleting destructor (destroys, then frees) demangles like the
		// destructor proper, which is a function of its own.
		d += " [deleting]"
	}
	demangled.Store(name, d)
	return d
}

// DisplayName returns the name of f as people read it: Demangle(f.Name).
func (f *Func) DisplayName() string { return Demangle(f.Name) }

// MatchNames returns the linkage names among names that query designates: the
// linkage name itself ("_ZN2ns1fEi"), the demangled name ("ns::f(int)"), or the
// demangled name without its parameters ("ns::f", "f", "max<int>"), which names every
// overload. Spaces in query are ignored, so "f(int *)" matches "f(int*)".
func MatchNames(names []string, query string) []string {
	q := strings.ReplaceAll(query, " ", "")
	var exact, base []string
	for _, n := range names {
		if n == query {
			return []string{n}
		}
		d := Demangle(n)
		if d == n {
			continue
		}
		if strings.ReplaceAll(d, " ", "") == q {
			exact = append(exact, n)
			continue
		}
		for _, opts := range [][]demangle.Option{{demangle.NoParams}, {demangle.NoParams, demangle.NoTemplateParams}} {
			s, err := demangle.ToString(n, opts...)
			if err != nil {
				break
			}
			s = strings.ReplaceAll(s, " ", "")
			if s == q {
				base = append(base, n)
				break
			}
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return base
}

// Lookup returns the function query designates (see MatchNames), or an error that
// lists the overloads when it designates several, or some names when none.
func (p *Program) Lookup(query string) (*Func, error) {
	var names []string
	byName := map[string]*Func{}
	for _, f := range p.Funcs {
		names = append(names, f.Name)
		byName[f.Name] = f
	}
	m := MatchNames(names, query)
	switch len(m) {
	case 1:
		return byName[m[0]], nil
	case 0:
		return nil, NoSuchFunc(query, names)
	}
	return nil, Ambiguous(query, m)
}

// Ambiguous is the error of a function name that designates several overloads.
func Ambiguous(query string, matches []string) error {
	var list []string
	for _, n := range matches {
		list = append(list, fmt.Sprintf("'%s' (%s)", Demangle(n), n))
	}
	sort.Strings(list)
	return fmt.Errorf("function %q is ambiguous: it names %s; give the parameter types or the mangled name", query, strings.Join(list, ", "))
}

// NoSuchFunc is the error of a function name that designates nothing; it lists some
// of the names that exist.
func NoSuchFunc(query string, names []string) error {
	var list []string
	for _, n := range names {
		list = append(list, Demangle(n))
	}
	sort.Strings(list)
	if len(list) > 20 {
		list = append(list[:20], "...")
	}
	return fmt.Errorf("no function %q; defined: %s", query, strings.Join(list, ", "))
}
