//go:build integration

// Tests of bad input that used to lose the user's files or results, exit 0 on a
// failure, or say something misleading: output paths checked before the run, a
// closed stdout, profiles and results of another program, fragprof cc as a drop-in
// clang, and the messages of --func main, a huge --eps, a missing TMPDIR, a
// truncated mapped file and a non-zero exit status.

package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// progC reads n and calls work n times; it prints the sum and exits 1 when n is 7.
const progC = `#include <stdio.h>
static int work(int i) { return i * 2; }
int main(void) {
  int n = 0, s = 0;
  if (scanf("%d", &n) != 1) return 2;
  for (int i = 0; i < n; i++) s += work(i);
  printf("%d\n", s);
  return n == 7;
}
`

// TestOutputPaths: an output that is one of the inputs (by name, through another
// path, or through a link), or another output, is refused before anything is built
// or run, and the input is left as it was; an output whose directory is missing or
// not writable fails before the run, not after it; merge may still replace one of
// its inputs, as documented.
func TestOutputPaths(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{"prog.c": progC, "in.toml": "stdin = \"{n}\\n\"\n[inputs]\nn = \"uniform_int(1, 9)\"\n"})
	src := filepath.Join(dir, "prog.c")
	if err := os.Symlink(src, filepath.Join(dir, "link.c")); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"-o the source", []string{"count", src, "-o", src}, 2, "-o " + src + " is the input file " + src},
		{"--profile the source", []string{"count", src, "--profile", src}, 2, "--profile " + src + " is the input file"},
		{"--report the source", []string{"count", src, "--report", src}, 2, "--report " + src + " is the input file"},
		{"--program-output the source", []string{"count", src, "--program-output", src}, 2, "--program-output " + src + " is the input file"},
		{"-o the source by another path", []string{"count", src, "-o", filepath.Join(dir, ".", "..", filepath.Base(dir), "prog.c")}, 2, "is the input file"},
		{"-o the source through a link", []string{"count", filepath.Join(dir, "link.c"), "-o", src}, 2, "is the input file " + filepath.Join(dir, "link.c")},
		{"freq --profile the inputs file", []string{"freq", src, "--inputs", filepath.Join(dir, "in.toml"), "--profile", filepath.Join(dir, "in.toml")}, 2, "--profile " + filepath.Join(dir, "in.toml") + " is the input file"},
		{"two outputs the same", []string{"count", src, "-o", filepath.Join(dir, "r.txt"), "--profile", filepath.Join(dir, "r.txt")}, 2, "name the same file"},
		{"pgo -o the source", []string{"pgo", src, "--profile", filepath.Join(dir, "x.fpp"), "-o", src}, 2, "is the input file"},
		{"-o in a missing directory", []string{"count", src, "-o", "/nonexistent/r.txt"}, 1, "-o /nonexistent/r.txt: the directory /nonexistent does not exist: create it first"},
		{"-o a directory", []string{"count", src, "-o", dir}, 1, "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := cli(t, "5\n", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tc.code, tc.want, stderr)
			}
			if out != "" {
				t.Errorf("the program ran (stdout %q): the output was not checked first", out)
			}
			if data, err := os.ReadFile(src); err != nil || string(data) != progC {
				t.Fatalf("the source was overwritten: %q (%v)", data, err)
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere
		_, stderr, code := cli(t, "5\n", "count", src, "-o", filepath.Join(ro, "r.txt"))
		if code != 1 || !strings.Contains(stderr, "cannot write in the directory "+ro) {
			t.Errorf("-o in a read-only directory: exit %d\n%s", code, stderr)
		}
	}
	// merge all.fpp new.fpp -o all.fpp accumulates: allowed.
	all, one := filepath.Join(dir, "all.fpp"), filepath.Join(dir, "one.fpp")
	for _, p := range []string{all, one} {
		if _, stderr, code := cli(t, "3\n", "count", src, "--profile", p, "-o", filepath.Join(dir, "r.txt")); code != 0 {
			t.Fatalf("count: exit %d\n%s", code, stderr)
		}
	}
	if _, stderr, code := cli(t, "", "merge", all, one, "-o", all); code != 0 {
		t.Errorf("merge into one of its inputs: exit %d\n%s", code, stderr)
	}
}

// TestClosedStdout: 'count --json >&-' (the report goes to stdout, which the shell
// closed) fails and says why instead of writing the report nowhere with status 0;
// '>/dev/null' is a choice and succeeds.
func TestClosedStdout(t *testing.T) {
	bin := fragprofBinary(t)
	dir := writeFiles(t, t.TempDir(), map[string]string{"prog.c": progC})
	for _, tc := range []struct {
		redirect string
		code     int
		want     string
	}{
		{">&-", 2, "count: stdout is closed (>&- in the shell)"},
		{">/dev/null", 0, ""},
	} {
		cmd := osexec.Command("sh", "-c", `echo 5 | "$0" count prog.c --json `+tc.redirect, bin)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("count --json %s: exit %d, want %d with %q:\n%s", tc.redirect, code, tc.code, tc.want, stderr.String())
		}
	}
}

// TestOtherProgram: pgo with the profile of another program fails and writes no
// program (merge and diff refuse such profiles too); report --base with the result
// of another program fails. Each message names both.
func TestOtherProgram(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{"prog.c": progC, "hello.c": "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n"})
	at := func(n string) string { return filepath.Join(dir, n) }
	for _, run := range [][]string{
		{"count", at("prog.c"), "--profile", at("a.fpp"), "--json", "-o", at("a.json")},
		{"count", at("hello.c"), "--profile", at("b.fpp"), "--json", "-o", at("b.json")},
	} {
		if _, stderr, code := cli(t, "5\n", run...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", run, code, stderr)
		}
	}
	_, stderr, code := cli(t, "", "pgo", at("prog.c"), "--profile", at("b.fpp"), "-o", at("p.bin"))
	if _, err := os.Stat(at("p.bin")); code != 1 || err == nil || !strings.Contains(stderr, at("b.fpp")+" is a profile of another program ("+at("hello.c")) ||
		!strings.Contains(stderr, "nothing was written") {
		t.Errorf("pgo with another program's profile: exit %d, p.bin written: %v\n%s", code, err == nil, stderr)
	}
	if _, stderr, code := cli(t, "", "pgo", at("prog.c"), "--profile", at("a.fpp"), "-o", at("p.bin")); code != 0 {
		t.Errorf("pgo with its own profile: exit %d\n%s", code, stderr)
	}
	a, _ := os.ReadFile(at("a.json"))
	_, stderr, code = cli(t, "", "report", at("a.json"), "-o", at("a.json"))
	if b, _ := os.ReadFile(at("a.json")); code != 2 || !bytes.Equal(a, b) || !strings.Contains(stderr, "report: -o "+at("a.json")+" is the input file") {
		t.Errorf("report -o its input: exit %d, input kept: %v\n%s", code, bytes.Equal(a, b), stderr)
	}
	_, stderr, code = cli(t, "", "report", at("a.json"), "--base", at("b.json"), "-o", at("r.html"))
	if code != 1 || !strings.Contains(stderr, "--base "+at("b.json")+" is a result of another program than "+at("a.json")) {
		t.Errorf("report --base of another program: exit %d\n%s", code, stderr)
	}
}

// TestCCDropIn: fragprof cc passes preprocessing and queries through to clang with
// stdout as stdout (CPP="$CC -E"), reads a source from stdin, and compiles at -O0
// without -O, as clang does.
func TestCCDropIn(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{"f.c": "#define TWICE(x) (2 * (x))\nstatic int sq(int x) { return x * x; }\nint f(int x) { return TWICE(sq(x)); }\n"})
	f := filepath.Join(dir, "f.c")
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"-E", f}, "", "(2 * (sq(x)))"},
		{[]string{"-M", f}, "", "f.o: " + f},
		{[]string{"-dM", "-E", "-x", "c", "-"}, "#define FROM_STDIN 42\n", "#define FROM_STDIN 42"},
		{[]string{"-E", "-x", "c", "-"}, "int from_stdin;\n", "int from_stdin;"},
		{[]string{"--version"}, "", "clang version"},
		{[]string{"-print-file-name=libc.so"}, "", "libc.so"},
	} {
		out, stderr, code := cli(t, tc.stdin, append([]string{"cc"}, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.want) || strings.Contains(stderr, tc.want) {
			t.Errorf("cc %v: exit %d, want %q on stdout\nstdout:\n%.300s\nstderr:\n%.300s", tc.args, code, tc.want, out, stderr)
		}
	}
	if _, _, code := cli(t, "", "cc", "-E", filepath.Join(dir, "nosuch.c")); code != 1 {
		t.Errorf("cc -E of a missing file: exit %d, want clang's 1", code)
	}
	// -o naming the source is refused, as gcc does (clang would overwrite it).
	before, _ := os.ReadFile(f)
	_, stderr, code := cli(t, "", "cc", "-c", f, "-o", f)
	if after, _ := os.ReadFile(f); code != 1 || !bytes.Equal(before, after) || !strings.Contains(stderr, "-o "+f+" is the source file") {
		t.Errorf("cc -c f.c -o f.c: exit %d, source kept: %v\n%s", code, bytes.Equal(before, after), stderr)
	}
	// A program from stdin, instrumented: count --binary reads its counts.
	bin := filepath.Join(dir, "stdin.bin")
	if _, stderr, code := cli(t, "int twice(int x) { return 2 * x; }\nint main(void) { return twice(2) - 4; }\n", "cc", "-x", "c", "-", "-o", bin); code != 0 {
		t.Fatalf("cc -x c - -o: exit %d\n%s", code, stderr)
	}
	out, stderr, code := cli(t, "", "count", "--binary", bin, "--json")
	var p report.JSONProgram
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || len(p.Functions) != 2 || p.Functions[0].Name != "twice" || p.Functions[0].File != "<stdin>" {
		t.Errorf("count --binary of a program from stdin: exit %d, want twice and main of <stdin>\n%.400s\n%s", code, out, stderr)
	}
	// -xc, joined, and a link of the object: the object is not taken for C.
	xc := filepath.Join(dir, "xc.bin")
	if _, stderr, code := cli(t, "int main(void) { return 0; }\n", "cc", "-xc", "-", "-o", xc); code != 0 || !hasSymbol(t, xc, "main") {
		t.Errorf("cc -xc - -o: exit %d\n%.500s", code, stderr)
	}
	// No -O: -O0, as clang's own, which keeps the static function sq; -O2 inlines it.
	for _, tc := range []struct {
		opt  []string
		keep bool
	}{{nil, true}, {[]string{"-O2"}, false}} {
		obj := filepath.Join(dir, "f.o")
		if _, stderr, code := cli(t, "", append(append([]string{"cc", "-c"}, tc.opt...), f, "-o", obj)...); code != 0 {
			t.Fatalf("cc -c %v: exit %d\n%s", tc.opt, code, stderr)
		}
		if got := hasSymbol(t, obj, "sq"); got != tc.keep {
			t.Errorf("cc -c %v: the object has sq: %v, want %v", tc.opt, got, tc.keep)
		}
	}
}

// hasSymbol tells whether the object file obj defines the symbol name.
func hasSymbol(t *testing.T, obj, name string) bool {
	t.Helper()
	ef, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name && s.Section != elf.SHN_UNDEF {
			return true
		}
	}
	return false
}

// TestBadInputMessages: the messages that used to mislead now name the cause and
// what to do.
func TestBadInputMessages(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{"prog.c": progC,
		"bus.c": `#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void) {
  int fd = open("mapped.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, 8192) != 0) return 2;
  volatile char *p = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED || ftruncate(fd, 0) != 0) return 3;
  return p[4096];
}
`})
	src := filepath.Join(dir, "prog.c")
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"--func main", "", []string{"freq", src, "--func", "main", "--input", "n = 3", "--max-trials", "10"}, 1, "--func main: main is the program itself"},
		{"--eps 1e308", "", []string{"freq", src, "--input", "n = 3", "--stdin", `{n}\n`, "--eps", "1e308"}, 2, "--eps 1e+308: want a precision of at most"},
		{"--stdin width", "", []string{"freq", src, "--input", "n = 3", "--stdin", `{n:%999999999d}\n`}, 2, "width 999999999 in format '%999999999d' is too large"},
		{"SIGBUS of a truncated mapping", "", []string{"count", filepath.Join(dir, "bus.c"), "-o", filepath.Join(dir, "bus.txt")}, 135, "a page of a mapped file past the file's end"},
		{"a non-zero exit", "7\n", []string{"count", src}, 1, "the program exited with status 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd, _ := os.Getwd()
			os.Chdir(dir) // bus.c maps a file of the current directory
			defer os.Chdir(wd)
			_, stderr, code := cli(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tc.code, tc.want, stderr)
			}
		})
	}
	// The text report in a file says how the run ended, as the JSON's "ended" does.
	txt := filepath.Join(dir, "r.txt")
	if _, stderr, code := cli(t, "7\n", "count", src, "-o", txt); code != 1 {
		t.Fatalf("count: exit %d\n%s", code, stderr)
	}
	if data, _ := os.ReadFile(txt); !strings.Contains(string(data), "the program exited with status 1") {
		t.Errorf("the text report does not say the program exited with status 1:\n%s", data)
	}
	// A missing TMPDIR is named, with what to do.
	t.Setenv("TMPDIR", filepath.Join(dir, "nosuch"))
	_, stderr, code := cli(t, "3\n", "count", src)
	if code != 1 || !strings.Contains(stderr, filepath.Join(dir, "nosuch")+" (TMPDIR): no such file or directory: set TMPDIR") {
		t.Errorf("count with a missing TMPDIR: exit %d\n%s", code, stderr)
	}
}
