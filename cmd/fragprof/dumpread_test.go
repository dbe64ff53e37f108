//go:build integration

package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/profile"
)

// dumpreadSrc calls work(n) in every process: with a second argument it forks first,
// so that both processes add their counts to one dump (FRAGPROF_OUT without %p).
const dumpreadSrc = `#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int work(int i) { return i % 3 == 0 ? i / 3 : i * 2 + 1; }

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 4, s = 0;
	pid_t child = -1;
	if (argc > 2)
		child = fork();
	for (int i = 0; i < n; i++)
		s += work(i);
	if (child > 0)
		waitpid(child, 0, 0);
	return s < 0;
}
`

// TestDumpFilesAsProfiles: the dump files that a program built with fragprof cc writes
// for FRAGPROF_OUT, in runs fragprof did not start, are read by show and merge as the
// profiles 'fragprof count --binary PROG --profile' writes for the same runs: byte for
// byte, but for the identity section (a dump does not name its binary); merging the
// dumps of three runs (FRAGPROF_OUT=dir/%p.fpd) gives what merging count's three
// profiles gives; a dump of two processes holds their sum.
func TestDumpFilesAsProfiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.c")
	if err := os.WriteFile(src, []byte(dumpreadSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	if _, stderr, code := cli(t, "", "cc", src, "-o", bin); code != 0 {
		t.Fatalf("cc: exit %d\n%s", code, stderr)
	}
	runs := filepath.Join(dir, "runs")
	if err := os.Mkdir(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	// run runs the program as a test harness would, with FRAGPROF_OUT=out, and
	// returns the dump file it wrote (%p expanded).
	run := func(out string, args ...string) string {
		t.Helper()
		before, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*.fpd"))
		cmd := osexec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "FRAGPROF_OUT="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, args, err, b)
		}
		after, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*.fpd"))
		if len(after) != len(before)+1 {
			t.Fatalf("%s %v with FRAGPROF_OUT=%s: %d dump files before, %d after", bin, args, out, len(before), len(after))
		}
		for _, f := range after {
			if !contains(before, f) {
				return f
			}
		}
		panic("unreachable")
	}
	// counted writes count's profile of the run with args.
	counted := func(name string, args ...string) string {
		t.Helper()
		prof := filepath.Join(dir, name)
		if _, stderr, code := cli(t, "", append([]string{"count", "--binary", bin, "--profile", prof, "--"}, args...)...); code != 0 {
			t.Fatalf("count %v: exit %d\n%s", args, code, stderr)
		}
		return prof
	}
	var dumps, profs []string
	for i, n := range []string{"3", "10", "17"} {
		d := run(filepath.Join(runs, "%p.fpd"), n)
		p := counted("count"+n+".fpp", n)
		sameAsCount(t, d, p)
		dumps, profs = append(dumps, d), append(profs, p)
		if i == 0 {
			showDump, stderr, code := cli(t, "", "show", d, "--order", "source")
			if code != 0 {
				t.Fatalf("show %s: exit %d\n%s", d, code, stderr)
			}
			showProf, _, _ := cli(t, "", "show", p, "--order", "source")
			// The first lines name the program, which the dump does not.
			if a, b := afterHeader(showDump), afterHeader(showProf); a != b || !strings.Contains(a, "work") {
				t.Errorf("show of the dump differs from show of count's profile:\n%s\n---\n%s", showDump, showProf)
			}
		}
	}
	fromDumps, fromCount := filepath.Join(dir, "dumps.fpp"), filepath.Join(dir, "counts.fpp")
	if _, stderr, code := cli(t, "", append([]string{"merge", "-o", fromDumps}, dumps...)...); code != 0 {
		t.Fatalf("merge of the dumps: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := cli(t, "", append([]string{"merge", "-o", fromCount}, profs...)...); code != 0 {
		t.Fatalf("merge of count's profiles: exit %d\n%s", code, stderr)
	}
	sameAsCount(t, fromDumps, fromCount)
	if m := parseProfile(t, fromDumps); m.Runs != 3 || workCalls(t, m) != 3+10+17 {
		t.Errorf("merged dumps: %d runs, work called %d times; want 3 and %d", m.Runs, workCalls(t, m), 3+10+17)
	}
	// Two processes, one dump: their sum, as count's.
	forked := run(filepath.Join(dir, "forked.fpd"), "6", "fork")
	sameAsCount(t, forked, counted("forked.fpp", "6", "fork"))
	if p, _, err := dump.ReadProfile(forked); err != nil || p.Runs != 1 || workCalls(t, p) != 12 {
		t.Errorf("dump of two processes: %v; want 1 run and work called 12 times (6 in each)", err)
	}
}

// sameAsCount checks that the file d (a dump, or a profile merged from dumps), read as
// every command reads a profile, is written as count's profile file p is, byte for
// byte, once given p's identity, which a dump cannot know.
func sameAsCount(t *testing.T, d, p string) {
	t.Helper()
	fromDump, _, err := dump.ReadProfile(d)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if fromDump.Identity.Name != "" || fromDump.Identity.BuildID != "" {
		t.Errorf("%s names %q, build-id %q: a dump names no binary", d, fromDump.Identity.Name, fromDump.Identity.BuildID)
	}
	fromDump.Identity = parseProfile(t, p).Identity
	var got bytes.Buffer
	if err := fromDump.Write(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("%s, as a profile, differs from %s:\n%s\n---\n%s", d, p, fromDump, parseProfile(t, p))
	}
}

func parseProfile(t *testing.T, name string) *profile.Profile {
	t.Helper()
	p, err := profile.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// workCalls is how often p's function work was called.
func workCalls(t *testing.T, p *profile.Profile) uint64 {
	t.Helper()
	for i, f := range p.Program.Funcs {
		if f.Name == "work" {
			return p.Counts[i].Calls()
		}
	}
	t.Fatal("no function work in the profile")
	return 0
}

// afterHeader is show's output without its first two lines (runs and program).
func afterHeader(s string) string {
	if _, rest, ok := strings.Cut(s, "\n"); ok {
		if _, rest, ok = strings.Cut(rest, "\n"); ok {
			return rest
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
