package runtime

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// layers is the runtime's layering, as c/fp_internal.h lists it: a file may call a
// function of another file only when that file's layer is lower.
var layers = map[string]int{
	"rt_state.c":      0,
	"rt_io.c":         1,
	"rt_continuous.c": 2,
	"walk.c":          2,
	"timing.c":        2,
	"trace.c":         2,
	"harness.c":       2,
	"rt_dump.c":       3,
	"rt_fork.c":       4,
	"rt_signals.c":    4,
	"rt_init.c":       5,
}

var (
	comments   = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	literals   = regexp.MustCompile(`"(\\.|[^"\\])*"`)
	definition = regexp.MustCompile(`(?m)^[A-Za-z_][^;\n=]*?\b(__fragprof_\w+)\([^;\n]*\)\s*\{`)
	reference  = regexp.MustCompile(`\b__fragprof_\w+\b`)
)

// code returns a C file's text without its comments and string literals.
func code(src []byte) string {
	return literals.ReplaceAllString(comments.ReplaceAllString(string(src), " "), `""`)
}

// TestLayers checks that every runtime file has a layer and that calls only go down:
// no file names a function (to call it, or to hand it as a hook) that a file of its
// own layer or of a higher one defines.
func TestLayers(t *testing.T) {
	files := Files()
	definedIn := map[string]string{}
	for name, src := range files {
		if !strings.HasSuffix(name, ".c") {
			continue
		}
		if _, ok := layers[name]; !ok {
			t.Errorf("c/%s has no layer: add it to fp_internal.h's list and to this test's", name)
		}
		for _, m := range definition.FindAllStringSubmatch(code(src), -1) {
			definedIn[m[1]] = name
		}
	}
	if len(definedIn) < 40 {
		t.Fatalf("found %d functions defined by the runtime, want the runtime's ~50: the pattern is off", len(definedIn))
	}
	var bad []string
	for name, src := range files {
		if !strings.HasSuffix(name, ".c") {
			continue
		}
		seen := map[string]bool{}
		for _, ref := range reference.FindAllString(code(src), -1) {
			def, ok := definedIn[ref]
			if !ok || def == name || seen[ref] {
				continue
			}
			seen[ref] = true
			if layers[def] >= layers[name] {
				bad = append(bad, fmt.Sprintf("%s (layer %d) → %s in %s (layer %d)", name, layers[name], ref, def, layers[def]))
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("a call that does not go down: %s", b)
	}
}

// TestLayersSeeUpwardCalls checks the check: a function of rt_init.c (the top)
// named from rt_io.c (layer 1) is an upward call.
func TestLayersSeeUpwardCalls(t *testing.T) {
	def := code([]byte("void __fragprof_register(struct fp_unit *u) {\n}\n"))
	if m := definition.FindStringSubmatch(def); m == nil || m[1] != "__fragprof_register" {
		t.Fatalf("the definition pattern misses %q: %v", def, m)
	}
	use := code([]byte("/* __fragprof_dump in a comment */ static void f(void) { __fragprof_register(0); }"))
	refs := reference.FindAllString(use, -1)
	if len(refs) != 1 || refs[0] != "__fragprof_register" {
		t.Fatalf("references in %q: %v, want only the call", use, refs)
	}
	if layers["rt_io.c"] >= layers["rt_init.c"] {
		t.Fatal("rt_io.c is not below rt_init.c")
	}
}
