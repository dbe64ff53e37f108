// This file holds the fixtures (programs and files) and the bad inputs tried on them.

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// programs are the C fixtures. Crashing ones call work() three times first, so that
// the report of a crashed run must show work called 3 times: counts not lost.
var programs = map[string]string{
	"ok.c":      "int main(void) { return 0; }\n",
	"hello.c":   "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
	"syntax.c":  "int main(void) { return x; }\n",
	"nomain.c":  "int f(int a) { return a + 1; }\n",
	"empty.c":   "",
	"missinc.c": "#include \"missing.h\"\nint main(void) { return 0; }\n",
	"error.c":   "#error this file is not meant to be compiled\nint main(void) { return 0; }\n",
	"readint.c": `#include <stdio.h>
static int step(int i) { return i % 3 == 0; }
int main(void) {
  int n = 0, s = 0;
  if (scanf("%d", &n) != 1) return 2;
  for (int i = 0; i < n; i++) s += step(i);
  printf("%d\n", s);
  return 0;
}
`,
	"nullstore.c": crashing(`int *p = 0; *p = s;`),
	"oob.c":       crashing(`int a[4]; volatile long k = -(1L << 42) * (s + 1); a[k] = s; printf("%d\n", a[0]);`), /* 7·2^44 bytes below the stack: unmapped */
	"abort.c":     crashing(`abort();`),
	"assert.c":    crashing(`assert(s == 1000);`),
	"stack.c": `#include <stdio.h>
static int work(int i) { return i * 2; }
static int down(int n) { volatile char buf[4096]; buf[0] = (char)n; return down(n + 1) + buf[0]; }
int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += work(i); printf("%d\n", s); fflush(stdout); return down(s); }
`,
	"divzero.c": crashing(`volatile int z = 0; printf("%d\n", s / z);`),
	"sigbus.c":  crashing(`raise(SIGBUS);`),
	"sigterm.c": crashing(`raise(SIGTERM);`),
	"exit3.c":   crashing(`exit(3);`),
	"mmapbus.c": `#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
static int work(int i) { return i * 2; }
int main(void) {
  int s = 0;
  for (int i = 0; i < 3; i++) s += work(i);
  int fd = open("mapped.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, 8192) != 0) return 2;
  volatile char *p = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED || ftruncate(fd, 0) != 0) return 3;
  return p[4096] + s; /* the page past the file's new end: SIGBUS */
}
`,
	"loop.c": `#include <stdio.h>
static int work(int i) { return i * 2; }
int main(void) { volatile int s = 0; for (int i = 0; i < 3; i++) s += work(i); printf("%d\n", s); fflush(stdout); for (;;) s++; }
`,
	"fork.c": `#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static int child_work(int x) { return x + 1; }
static int parent_work(int x) { return x + 2; }
int main(void) {
  pid_t pid = fork();
  if (pid == 0) { printf("%d\n", child_work(1)); return 0; }
  int st;
  waitpid(pid, &st, 0);
  printf("%d\n", parent_work(1));
  return 0;
}
`,
	"nofile.c":     limiting("RLIMIT_NOFILE", "3", "soft"),
	"nofilehard.c": limiting("RLIMIT_NOFILE", "3", "hard"),
	"fsize.c":      limiting("RLIMIT_FSIZE", "0", "soft"),
	"fsizehard.c":  limiting("RLIMIT_FSIZE", "0", "hard"),
	"forkexit.c": `#include <sys/wait.h>
#include <unistd.h>
static int work(int x) { return x + 1; }
int main(void) {
  for (int k = 0; k < 3; k++) {
    pid_t pid = fork();
    if (pid == 0) { work(k); _exit(0); }
    waitpid(pid, 0, 0);
  }
  return 0;
}
`,
	"forkkill.c": `#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
static int work(int x) { return x + 1; }
int main(void) {
  pid_t pid = fork();
  if (pid == 0) { work(1); kill(getpid(), SIGKILL); }
  waitpid(pid, 0, 0);
  return work(0) - 1;
}
`,
	"passthrough.cpp": `#include <cstdio>
#include <stdexcept>
struct MyErr {};
static void f(int i) { if (i % 7 == 0) throw std::out_of_range("f"); }
static void g(int i) { try { f(i); } catch (const MyErr &) { puts("never"); } }
int main() {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try { g(i); } catch (const std::exception &) { caught++; }
  }
  printf("%d\n", caught);
  return 0;
}
`,
	"exit1.c":    "#include <stdio.h>\nint main(void) { int n; if (scanf(\"%d\", &n) != 1) return 2; return 1; }\n",
	"crashall.c": "#include <stdio.h>\nint main(void) { int n; if (scanf(\"%d\", &n) != 1) return 2; volatile int *p = 0; *p = n; return 0; }\n",
	"hangall.c":  "#include <stdio.h>\nint main(void) { int n; if (scanf(\"%d\", &n) != 1) return 2; for (volatile int i = 0;; i++) ; }\n",
	"silent.c":   "#include <stdio.h>\nint main(void) { char b[64]; while (fgets(b, sizeof b, stdin)) ; return 0; }\n",
	"structfn.c": `struct pt { int x; double y; };
int norm(struct pt p) { return p.x > 0 ? p.x : -p.x; }
int main(void) { struct pt p = {1, 2}; return norm(p); }
`,
	"grid.c": `int grid[3][4];
int sum(int rows) { int s = 0; for (int i = 0; i < rows; i++) for (int j = 0; j < 4; j++) s += grid[i][j]; return s; }
int main(void) { return sum(3); }
`,
}

// crashing returns a program that calls work() three times, prints, then does body.
func crashing(body string) string {
	return `#include <assert.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
static int work(int i) { return i * 2; }
int main(void) {
  int s = 0;
  for (int i = 0; i < 3; i++) s += work(i);
  printf("%d\n", s);
  fflush(stdout);
  ` + body + `
  return 0;
}
`
}

// limiting returns a program that lowers the limit res to n (its hard limit too
// when which is "hard"), then calls work() three times.
func limiting(res, n, which string) string {
	hard := ""
	if which == "hard" {
		hard = "r.rlim_max = r.rlim_cur;"
	}
	return `#include <stdio.h>
#include <sys/resource.h>
static int work(int i) { return i * 2; }
int main(void) {
  struct rlimit r;
  getrlimit(` + res + `, &r);
  r.rlim_cur = ` + n + `;
  ` + hard + `
  if (setrlimit(` + res + `, &r) != 0) return 9;
  int s = 0;
  for (int i = 0; i < 3; i++) s += work(i);
  printf("%d\n", s);
  return 0;
}
`
}

// files are the other fixtures.
var files = map[string]string{
	"bad.toml":       "[inputs\nn = \"uniform_int(1, 9)\"\n",
	"unknown.toml":   "stdin = \"{n}\\n\"\ncolour = 3\n[inputs]\nn = \"uniform_int(1, 9)\"\n",
	"baddist.toml":   "stdin = \"{n}\\n\"\n[inputs]\nn = \"uniform_int(9, 1)\"\n",
	"notjson.json":   "{\n  \"functions\": [1,\n}\n",
	"notmodel.json":  "{\"nodes\": 3}\n",
	"empty.txt":      "",
	"text.txt":       "just some text\n",
	"script.sh":      "#!/bin/sh\necho hi\n",
	"truncated.json": `{"counters": 8, "runs": 1, "functions": [{"name": "main", "file": "a.c", "calls": 1, "blocks": [`,
	"notbatches.txt": "fragprof-batches 7\nb 1 2\n",
	"run.batches":    batches,
	"cut.batches":    batches[:len(batches)-3],
}

// batches is a batches file (docs/batches.md) of two batches.
const batches = "fragprof-batches 1\ni 401000 4 other\ni 401004 4 other\nb 1 10 7 7 401000 401004\nb 2 20 7 7 401000 401004\n"

// fixture returns the text of the fixture name.
func fixture(name string) string {
	if text, ok := programs[name]; ok {
		return text
	}
	return files[name]
}

// setUp writes the fixtures to work/fix and derives the profiles and binaries the
// cases need with fragprof itself.
func setUp(bin, work string) error {
	fix := filepath.Join(work, "fix")
	if err := os.MkdirAll(fix, 0o755); err != nil {
		return err
	}
	for name, text := range programs {
		if err := os.WriteFile(filepath.Join(fix, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(fix, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(fix, "script.sh"), 0o755); err != nil {
		return err
	}
	bru, err := os.ReadFile("examples/predict/brusselator.c")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(fix, "bru.c"), bru, 0o644); err != nil {
		return err
	}
	// many.c: 3,000 functions, seconds of clang: a build to interrupt.
	var many strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&many, "int f%d(int x) { if (x > %d) return x - %d; return x * 3 + %d; }\n", i, i, i, i)
	}
	many.WriteString("int main(void) { return f0(1) & 1; }\n")
	if err := os.WriteFile(filepath.Join(fix, "many.c"), []byte(many.String()), 0o644); err != nil {
		return err
	}
	// loop.plain: loop.c built by clang alone, for sample.
	if out, err := exec.Command("clang", "-O1", "-g", filepath.Join(fix, "loop.c"), "-o", filepath.Join(fix, "loop.plain")).CombinedOutput(); err != nil {
		return fmt.Errorf("clang loop.c: %v\n%s", err, out)
	}
	run := func(stdin string, args ...string) error {
		cmd := exec.Command(bin, args...)
		cmd.Dir = fix
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("fragprof %v: %v\n%s", args, err, out)
		}
		return nil
	}
	steps := []struct {
		stdin string
		args  []string
	}{
		{"5\n", []string{"count", "readint.c", "--profile", "a.fpp", "-o", "a.txt"}},
		{"", []string{"count", "hello.c", "--profile", "b.fpp", "-o", "b.txt"}},
		{"7\n", []string{"count", "readint.c", "--json", "-o", "counts.json"}},
		{"", []string{"cc", "nullstore.c", "-o", "nullstore.bin"}},
		{"", []string{"count", "hello.c", "--json", "-o", "hello.json"}},
		{"", []string{"trace", "bru.c", "--input", "K = choice(1, 2, 4, 8, 16)", "--stdin", "{K}\\n", "--trials", "15", "-o", "traces"}},
		{"", []string{"model", "build", "traces", "-o", "bru.model"}},
		{"", []string{"freq", "readint.c", "--input", "n = uniform_int(1, 9)", "--stdin", "{n}\\n", "--max-trials", "200", "--eps", "1", "--profile", "stats.fpp", "-o", "freq.txt"}},
	}
	for _, s := range steps {
		if err := run(s.stdin, s.args...); err != nil {
			return err
		}
	}
	a, err := os.ReadFile(filepath.Join(fix, "a.fpp"))
	if err != nil {
		return err
	}
	flipped := append([]byte(nil), a...)
	flipped[len(flipped)/2] ^= 0x40
	for name, data := range map[string][]byte{"trunc.fpp": a[:len(a)/2], "flipped.fpp": flipped} {
		if err := os.WriteFile(filepath.Join(fix, name), data, 0o644); err != nil {
			return err
		}
	}
	return os.Symlink("/bin/true", filepath.Join(fix, "true.bin"))
}

// cases returns every bad input, by category.
func cases() []*testCase {
	c := func(cat, name string, want check, args ...string) *testCase {
		return &testCase{cat: cat, name: name, args: args, want: want}
	}
	usage := check{exit: 2}
	fail := check{exit: 1}
	nonzero := check{exit: anyNonZero}
	crash := func(sig int) check { return check{exit: 128 + sig, counts: []string{"work=3", "main=1"}} }
	with := func(tc *testCase, stdin string, timeout time.Duration) *testCase {
		tc.stdin, tc.timeout = stdin, timeout
		return tc
	}
	inEnv := func(tc *testCase, env ...string) *testCase {
		tc.env = env
		return tc
	}
	closed := func(tc *testCase) *testCase {
		tc.closed = true
		return tc
	}
	keeps := func(w check, files ...string) check {
		w.intact = files
		return w
	}
	// signal sends sig to fragprof (or its group) once a process named after runs.
	signal := func(tc *testCase, sig syscall.Signal, group bool, after string) *testCase {
		tc.sig, tc.group, tc.after, tc.timeout = sig, group, after, 90*time.Second
		return tc
	}
	interrupted := func(msg string) check { return check{exit: 130, message: msg} }
	terminated := func(msg string) check { return check{exit: 143, message: msg} }
	freqBase := []string{"--stdin", "{n}\\n", "--max-trials", "300", "--eps", "1"}
	freqWith := func(src string, extra ...string) []string {
		return append(append([]string{"freq", src}, freqBase...), extra...)
	}
	return []*testCase{
		// Files and flags.
		c("files", "count: no such file", usage, "count", "nosuch.c"),
		c("files", "count: a directory", usage, "count", "/tmp"),
		c("files", "count: syntax error", fail, "count", "syntax.c"),
		c("files", "count: an empty file (no main)", nonzero, "count", "empty.c"),
		c("files", "count: no main", check{exit: anyNonZero, message: "no main"}, "count", "nomain.c"),
		c("files", "cc: no main", nonzero, "cc", "nomain.c", "-o", "nomain.bin"),
		c("files", "count: a missing header", check{exit: 1, message: "missinc.c"}, "count", "missinc.c"),
		c("files", "count --binary: no such file", nonzero, "count", "--binary", "nosuch.bin"),
		c("files", "count --binary: a text file", nonzero, "count", "--binary", "text.txt"),
		c("files", "count --binary: not built by fragprof", nonzero, "count", "--binary", "true.bin"),
		c("files", "count --binary: a script", nonzero, "count", "--binary", "script.sh"),
		c("files", "count -o into a missing directory", check{exit: 1, message: "no/such/dir/x.txt"}, "count", "ok.c", "-o", "no/such/dir/x.txt"),
		c("files", "count -o a directory", check{exit: 1, message: "is a directory"}, "count", "ok.c", "-o", "."),
		c("files", "count -o the source", keeps(check{exit: 2, message: "-o ok.c is the input file ok.c"}, "ok.c"), "count", "ok.c", "-o", "ok.c"),
		c("files", "count --profile the source", keeps(check{exit: 2, message: "is the input file"}, "ok.c"), "count", "ok.c", "--profile", "ok.c"),
		c("files", "count --report the source", keeps(check{exit: 2, message: "is the input file"}, "ok.c"), "count", "ok.c", "--report", "./ok.c"),
		c("files", "count --program-output the source", keeps(check{exit: 2, message: "is the input file"}, "hello.c"), "count", "hello.c", "--program-output", "hello.c"),
		c("files", "freq --profile the inputs file", keeps(check{exit: 2, message: "is the input file"}, "baddist.toml"), "freq", "readint.c", "--inputs", "baddist.toml", "--profile", "baddist.toml"),
		c("files", "pgo -o the source", keeps(check{exit: 2, message: "is the input file"}, "readint.c"), "pgo", "readint.c", "--profile", "a.fpp", "-o", "readint.c"),
		c("files", "cc -o the source", keeps(check{exit: 1, message: "is the source file"}, "ok.c"), "cc", "ok.c", "-o", "ok.c"),
		c("files", "report -o its input", keeps(check{exit: 2, message: "is the input file"}, "notjson.json"), "report", "notjson.json", "-o", "notjson.json"),
		c("files", "count: -o and --profile the same file", check{exit: 2, message: "name the same file"}, "count", "ok.c", "-o", "r.txt", "--profile", "r.txt"),
		with(c("files", "count -o a missing directory, before the run", check{exit: 1, message: "/nonexistent does not exist"}, "count", "readint.c", "-o", "/nonexistent/r.txt"), "5\n", 0),
		with(closed(c("files", "count --json with stdout closed", check{exit: 2, message: "stdout is closed"}, "count", "readint.c", "--json")), "5\n", 0),
		inEnv(c("files", "count: TMPDIR missing", check{exit: 1, message: "/nonexistent (TMPDIR)"}, "count", "ok.c"), "TMPDIR=/nonexistent"),
		c("files", "cfg: no C file", usage, "cfg"),
		c("files", "cfg: #error", check{exit: 1, message: "error.c"}, "cfg", "error.c"),
		c("flags", "count: unknown --format", usage, "count", "ok.c", "--format", "xml"),
		c("flags", "count: --opt without a value", usage, "count", "ok.c", "--opt"),
		c("flags", "count: unknown flag", usage, "count", "ok.c", "--colour"),
		c("flags", "count: no arguments", usage, "count"),
		c("flags", "count: --binary with C files", usage, "count", "--binary", "nullstore.bin", "ok.c"),
		c("flags", "unknown command", usage, "cnt", "ok.c"),
		c("flags", "model show: no file", usage, "model", "show"),
		c("flags", "time: no --fragment", usage, "time", "ok.c"),
		c("flags", "trace: no -o", usage, "trace", "ok.c"),
		c("flags", "freq --eps abc", usage, freqWith("readint.c", "--input", "n = 3", "--eps", "abc")...),
		c("flags", "freq --eps 0", usage, freqWith("readint.c", "--input", "n = 3", "--eps", "0")...),
		c("flags", "freq --eps -1", usage, freqWith("readint.c", "--input", "n = 3", "--eps", "-1")...),
		c("flags", "freq --eps NaN", usage, freqWith("readint.c", "--input", "n = 3", "--eps", "NaN")...),
		c("flags", "freq --gamma 1.5", usage, freqWith("readint.c", "--input", "n = 3", "--gamma", "1.5")...),
		c("flags", "freq --gamma 0", usage, freqWith("readint.c", "--input", "n = 3", "--gamma", "0")...),
		c("flags", "freq --design latin:1", usage, freqWith("readint.c", "--input", "n = 3", "--design", "latin:1")...),
		c("flags", "freq --design stratified", usage, freqWith("readint.c", "--input", "n = 3", "--design", "stratified")...),
		c("flags", "freq --design latin with a FreqSys rule", usage, freqWith("readint.c", "--input", "n = 3", "--design", "latin", "--rule", "freqsys-signed")...),
		c("flags", "freq --trial-timeout without unit", usage, freqWith("readint.c", "--input", "n = 3", "--trial-timeout", "5")...),
		c("flags", "freq --max-trials -3", usage, freqWith("readint.c", "--input", "n = 3", "--max-trials", "-3")...),
		c("flags", "merge --weights not numbers", usage, "merge", "a.fpp", "a.fpp", "--weights", "1,x", "-o", "m.fpp"),
		c("flags", "merge --weights count", usage, "merge", "a.fpp", "a.fpp", "--weights", "1", "-o", "m.fpp"),
		c("flags", "merge: no -o", usage, "merge", "a.fpp"),
		c("flags", "export: no --format", usage, "export", "a.fpp"),
		c("flags", "diff: one file", usage, "diff", "a.fpp"),
		c("flags", "count --timeout -5s", check{exit: 2, message: "a duration cannot be negative"}, "count", "ok.c", "--timeout", "-5s"),
		c("flags", "freq --max-time -1m", check{exit: 2, message: "a duration cannot be negative"}, freqWith("readint.c", "--input", "n = 3", "--max-time", "-1m")...),
		c("flags", "freq --jobs 0", check{exit: 2, message: "want at least 1"}, freqWith("readint.c", "--input", "n = 3", "--jobs", "0")...),
		c("flags", "freq --jobs -1", check{exit: 2, message: "want at least 1"}, freqWith("readint.c", "--input", "n = 3", "--jobs", "-1")...),
		c("flags", "time --cpu 4096", check{exit: 2, message: "--cpu 4096: fragprof may run on CPUs"}, "time", "ok.c", "--fragment", "program", "--cpu", "4096"),
		with(c("flags", "time --fragment region:nosuch", check{exit: 1, message: `no FP_BEGIN("nosuch")`}, "time", "loop.c", "--fragment", "region:nosuch", "--reps", "1000000"), "", 60*time.Second),
		with(c("flags", "freq --jobs 100000 (capped)", check{exit: 0, message: "--jobs 100000 is more than"}, freqWith("readint.c", "--input", "n = uniform_int(1, 9)", "--jobs", "100000", "--max-trials", "200")...), "", 120*time.Second),
		// Distributions and models.
		c("inputs", "unclosed call", usage, freqWith("readint.c", "--input", "n = uniform_int(1")...),
		c("inputs", "unknown distribution", usage, freqWith("readint.c", "--input", "n = foo(1)")...),
		c("inputs", "empty bounds lo > hi", usage, freqWith("readint.c", "--input", "n = uniform_int(9, 1)")...),
		c("inputs", "negative standard deviation", usage, freqWith("readint.c", "--input", "n = normal(0, -1)")...),
		c("inputs", "negative array length", usage, freqWith("readint.c", "--input", "n = 3", "--input", "a = array(-3, 1)")...),
		c("inputs", "choice of nothing", usage, freqWith("readint.c", "--input", "n = choice()")...),
		c("inputs", "template names no input", usage, "freq", "readint.c", "--input", "n = 3", "--stdin", "{m}\\n", "--max-trials", "100"),
		c("inputs", "input defined twice", usage, freqWith("readint.c", "--input", "n = 3", "--input", "n = 4")...),
		c("inputs", "template width too large", check{exit: 2, message: "is too large"}, "freq", "readint.c", "--input", "n = 3", "--stdin", "{n:%999999999d}\\n", "--max-trials", "10"),
		c("inputs", "model predict --set NaN", check{exit: 2, message: "want a finite number"}, "model", "predict", "bru.model", "--set", "K=NaN"),
		c("inputs", "model predict --set inf", check{exit: 2, message: "want a finite number"}, "model", "predict", "bru.model", "--set", "K=inf"),
		c("inputs", "model predict --set 1e18", check{exit: 2, message: "at most 2^53"}, "model", "predict", "bru.model", "--set", "K=1e18"),
		c("inputs", "TOML syntax error", fail, "freq", "readint.c", "--inputs", "bad.toml"),
		c("inputs", "TOML unknown key", fail, "freq", "readint.c", "--inputs", "unknown.toml"),
		c("inputs", "TOML bad distribution", fail, "freq", "readint.c", "--inputs", "baddist.toml"),
		c("inputs", "TOML file missing", nonzero, "freq", "readint.c", "--inputs", "nosuch.toml"),
		c("inputs", "--func: no such function", nonzero, "freq", "readint.c", "--func", "nosuch", "--input", "i = 1"),
		c("inputs", "--func: parameter without input", nonzero, "freq", "readint.c", "--func", "step"),
		c("inputs", "--func main", check{exit: 1, message: "main is the program itself"}, "freq", "readint.c", "--func", "main", "--input", "n = 3"),
		c("flags", "freq --eps 1e308", check{exit: 2, message: "want a precision of at most"}, freqWith("readint.c", "--input", "n = 3", "--eps", "1e308")...),
		c("inputs", "--func: struct parameter", check{exit: anyNonZero, message: "struct pt"}, "freq", "structfn.c", "--func", "norm", "--input", "p = 1"),
		c("inputs", "--func: 2-D global from a scalar", check{exit: anyNonZero, message: "int [3][4]"}, "freq", "grid.c", "--func", "sum", "--input", "rows = 3", "--input", "grid = 5"),
		// Profiles and result files.
		c("profiles", "show: a C file", fail, "show", "ok.c"),
		c("profiles", "show: truncated profile", fail, "show", "trunc.fpp"),
		c("profiles", "show: damaged profile", fail, "show", "flipped.fpp"),
		c("profiles", "show: empty file", fail, "show", "empty.txt"),
		c("profiles", "show: no such file", nonzero, "show", "nosuch.fpp"),
		with(c("profiles", "show: /dev/zero", check{exit: 1, message: "bad magic"}, "show", "/dev/zero"), "", 20*time.Second),
		c("profiles", "merge: different programs", check{exit: 1, message: "different programs"}, "merge", "a.fpp", "b.fpp", "-o", "m.fpp"),
		c("profiles", "diff: different programs", check{exit: 1, message: "different programs"}, "diff", "a.fpp", "b.fpp"),
		c("profiles", "merge: a damaged input", fail, "merge", "a.fpp", "flipped.fpp", "-o", "m.fpp"),
		c("profiles", "freq --from: a profile without statistics", fail, "freq", "--from", "a.fpp"),
		c("profiles", "freq --from: not a profile", fail, "freq", "--from", "ok.c"),
		c("profiles", "report: a C file", fail, "report", "ok.c", "-o", "r.html"),
		c("profiles", "report: truncated JSON", check{exit: 1, message: "line 1"}, "report", "truncated.json", "-o", "r.html"),
		c("profiles", "report: malformed JSON", check{exit: 1, message: "line 3"}, "report", "notjson.json", "-o", "r.html"),
		c("profiles", "model show: not a model", check{exit: 1, message: "notmodel.json"}, "model", "show", "notmodel.json"),
		c("profiles", "model show: a profile", fail, "model", "show", "a.fpp"),
		c("profiles", "hotcfg: not a batches file", fail, "hotcfg", "notbatches.txt"),
		c("profiles", "hotcfg: empty file", fail, "hotcfg", "empty.txt"),
		c("profiles", "hotcfg: a batches file cut mid-line", check{exit: 1, message: "cut.batches:5: the last line is cut short"}, "hotcfg", "cut.batches"),
		c("profiles", "hotcfg --compare: a batches file", check{exit: 1, message: "--compare run.batches is a batches file"}, "hotcfg", "run.batches", "--compare", "run.batches"),
		c("profiles", "pgo: another program's profile", check{exit: 1, message: "is a profile of another program"}, "pgo", "readint.c", "--profile", "b.fpp", "-o", "p.bin"),
		c("profiles", "report --base: another program", check{exit: 1, message: "is a result of another program"}, "report", "counts.json", "--base", "hello.json", "-o", "r.html"),
		// Programs that crash, hang, fork, exit non-zero or print nothing.
		c("programs", "count: null store (-O2)", crash(11), "count", "nullstore.c", "--json", "-o", "out.json"),
		c("programs", "count --binary: null store", crash(11), "count", "--binary", "nullstore.bin", "--json", "-o", "out.json"),
		c("programs", "count: out-of-bounds write", crash(11), "count", "oob.c", "--json", "-o", "out.json"),
		c("programs", "count: abort()", crash(6), "count", "abort.c", "--json", "-o", "out.json"),
		c("programs", "count: failed assert", crash(6), "count", "assert.c", "--json", "-o", "out.json"),
		c("programs", "count: stack overflow", check{exit: 139, counts: []string{"work=3", "main=1"}}, "count", "stack.c", "--json", "-o", "out.json"),
		c("programs", "count: division by zero", crash(8), "count", "divzero.c", "--json", "-o", "out.json"),
		c("programs", "count: raise(SIGBUS)", crash(7), "count", "sigbus.c", "--json", "-o", "out.json"),
		c("programs", "count: uncaught SIGTERM", crash(15), "count", "sigterm.c", "--json", "-o", "out.json"),
		c("programs", "count: exit(3) after work", check{exit: 3, counts: []string{"work=3", "main=1"}}, "count", "exit3.c", "--json", "-o", "out.json"),
		c("programs", "count: exit(3), text report", check{exit: 3, message: "exited with status 3"}, "count", "exit3.c", "-o", "out.txt"),
		c("programs", "count: SIGBUS of a truncated mapping", check{exit: 135, counts: []string{"work=3", "main=1"}, message: "a mapped file past the file's end"}, "count", "mmapbus.c", "--json", "-o", "out.json"),
		with(c("programs", "count --timeout: a loop that never ends", check{exit: anyNonZero, counts: []string{"work=3", "main=1"}}, "count", "loop.c", "--timeout", "2s", "--json", "-o", "out.json"), "", 90*time.Second),
		c("programs", "count: fork (both processes counted)", check{exit: 0, counts: []string{"child_work=1", "parent_work=1", "main=1"}}, "count", "fork.c", "--json", "-o", "out.json"),
		c("programs", "count: fork, children end by _exit", check{exit: 0, counts: []string{"work=3", "main=1"}}, "count", "forkexit.c", "--json", "-o", "out.json"),
		c("programs", "count: fork, the child dies of SIGKILL", check{exit: 0, message: "1 forked process(es) of the program ended without writing their counts", counts: []string{"work=1", "main=1"}}, "count", "forkkill.c", "--json", "-o", "out.json"),
		c("programs", "count: lowers its soft RLIMIT_NOFILE to 3", check{exit: 0, counts: []string{"work=3", "main=1"}}, "count", "nofile.c", "--json", "-o", "out.json"),
		c("programs", "count: lowers its hard RLIMIT_NOFILE to 3", check{exit: 1, message: "RLIMIT_NOFILE"}, "count", "nofilehard.c", "--json", "-o", "out.json"),
		c("programs", "count: lowers its soft RLIMIT_FSIZE to 0", check{exit: 0, counts: []string{"work=3", "main=1"}}, "count", "fsize.c", "--json", "-o", "out.json"),
		c("programs", "count: lowers its hard RLIMIT_FSIZE to 0", check{exit: 1, message: "RLIMIT_FSIZE"}, "count", "fsizehard.c", "--json", "-o", "out.json"),
		c("programs", "count: C++ exception through a frame that does not catch it", check{exit: 0, counts: []string{"g(int)=100", "f(int)=100", "main=1"}}, "count", "passthrough.cpp", "--json", "-o", "out.json"),
		c("programs", "count --counters edges: the same", check{exit: 0, counts: []string{"g(int)=100", "f(int)=100", "main=1"}}, "count", "passthrough.cpp", "--counters", "edges", "--json", "-o", "out.json"),
		c("programs", "count: prints nothing", check{exit: 0, counts: []string{"main=1"}}, "count", "silent.c", "--json", "-o", "out.json"),
		with(c("programs", "count --json: report on stdout", check{exit: 0, stdout: `"functions"`}, "count", "readint.c", "--json"), "4\n", 0),
		c("programs", "count: reads stdin, gets none", check{exit: 2}, "count", "readint.c", "-o", "out.txt"),
		with(c("programs", "freq: every trial exits 1", check{exit: 0, message: "status 1"}, freqWith("exit1.c", "--input", "n = uniform_int(1, 9)")...), "", 120*time.Second),
		with(c("programs", "freq --fail-nonzero: every trial left out", nonzero, freqWith("exit1.c", "--input", "n = uniform_int(1, 9)", "--fail-nonzero")...), "", 120*time.Second),
		with(c("programs", "freq: every trial crashes", nonzero, freqWith("crashall.c", "--input", "n = uniform_int(1, 9)")...), "", 120*time.Second),
		with(c("programs", "freq: every trial hangs", nonzero, freqWith("hangall.c", "--input", "n = uniform_int(1, 9)", "--trial-timeout", "1s")...), "", 150*time.Second),
		with(c("programs", "time: a program that crashes", nonzero, "time", "nullstore.c", "--fragment", "func:work", "--reps", "5"), "", 120*time.Second),
		// Signals: SIGINT and SIGTERM, to fragprof alone or to its process group,
		// while it builds, runs trials or samples; each run must end within
		// signalBound, 130 after SIGINT and 143 after SIGTERM.
		signal(c("signals", "count: SIGINT while clang builds", interrupted("interrupted (SIGINT) while"), "count", "many.c"), syscall.SIGINT, false, "clang"),
		signal(c("signals", "count: SIGTERM to the group while clang builds", terminated("terminated (SIGTERM) while"), "count", "many.c"), syscall.SIGTERM, true, "clang"),
		signal(c("signals", "count: SIGINT to the group (Ctrl-C) while it runs", check{exit: 130, message: "interrupted (SIGINT)", counts: []string{"work=3", "main=1"}},
			"count", "loop.c", "--json", "-o", "out.json"), syscall.SIGINT, true, "prog"),
		signal(c("signals", "count: SIGTERM while it runs", check{exit: 143, message: "killed by SIGTERM", counts: []string{"work=3", "main=1"}},
			"count", "loop.c", "--json", "-o", "out.json"), syscall.SIGTERM, false, "prog"),
		signal(c("signals", "freq --jobs 100000: SIGINT", interrupted("fragprof freq"), freqWith("hangall.c", "--input", "n = uniform_int(1, 9)", "--jobs", "100000", "--max-trials", "200")...), syscall.SIGINT, false, "prog"),
		signal(c("signals", "freq: SIGTERM", terminated("fragprof freq"), freqWith("hangall.c", "--input", "n = uniform_int(1, 9)")...), syscall.SIGTERM, false, "prog"),
		signal(c("signals", "freq: SIGTERM to the group", terminated("fragprof freq"), freqWith("hangall.c", "--input", "n = uniform_int(1, 9)")...), syscall.SIGTERM, true, "prog"),
		signal(c("signals", "freq --replay: SIGINT", interrupted("trial 0 interrupted (SIGINT)"), "freq", "hangall.c", "--input", "n = 3", "--stdin", "{n}\\n", "--replay", "0"), syscall.SIGINT, false, "prog"),
		signal(c("signals", "time: SIGTERM", terminated(""), "time", "loop.c", "--fragment", "func:work", "--reps", "5"), syscall.SIGTERM, false, "prog"),
		signal(c("signals", "trace: SIGINT", interrupted("interrupted: the traces so far are kept"), "trace", "loop.c", "--trials", "5", "-o", "traces"), syscall.SIGINT, false, "prog"),
		signal(c("signals", "sample in process: SIGINT", interrupted("interrupted: the batches so far are kept"), "sample", "--sampler", "inprocess", "-o", "s.batches", "--", "./loop.plain"), syscall.SIGINT, false, "loop.plain"),
		signal(c("signals", "sample in process: SIGTERM", terminated("terminated: the batches so far are kept"), "sample", "--sampler", "inprocess", "-o", "s.batches", "--", "./loop.plain"), syscall.SIGTERM, false, "loop.plain"),
		signal(c("signals", "sample under ptrace: SIGTERM", terminated("terminated: the batches so far are kept"), "sample", "--sampler", "ptrace", "-o", "s.batches", "--", "./loop.plain"), syscall.SIGTERM, false, "loop.plain"),
		signal(c("signals", "sample under ptrace: SIGINT to the group", interrupted("interrupted: the batches so far are kept"), "sample", "--sampler", "ptrace", "-o", "s.batches", "--", "./loop.plain"), syscall.SIGINT, true, "loop.plain"),
		with(c("programs", "sample --exact --max-instructions: a loop that never ends", check{exit: 0, message: "the program ended with SIGTERM"},
			"sample", "--exact", "--max-instructions", "20000", "-o", "exact.cfg", "--", "./loop.plain"), "", 60*time.Second),
		// What must succeed.
		c("good", "cc --help", check{exit: 0, stdout: "FRAGPROF_COUNTERS"}, "cc", "--help"),
		c("good", "--version", check{exit: 0, stdout: "clang"}, "--version"),
		c("good", "cc -E: to stdout", check{exit: 0, stdout: "int main(void)"}, "cc", "-E", "ok.c"),
		with(c("good", "cc -dM -E -x c - from stdin", check{exit: 0, stdout: "#define FROM_STDIN 1"}, "cc", "-dM", "-E", "-x", "c", "-"), "#define FROM_STDIN 1\n", 0),
		c("good", "cc --version: to stdout", check{exit: 0, stdout: "clang version"}, "cc", "--version"),
		c("good", "cc -print-file-name=: to stdout", check{exit: 0, stdout: "libc.so"}, "cc", "-print-file-name=libc.so"),
		with(c("good", "cc -x c - -o: a program from stdin", check{exit: 0}, "cc", "-x", "c", "-", "-o", "stdin.bin"), "int main(void) { return 0; }\n", 0),
	}
}
