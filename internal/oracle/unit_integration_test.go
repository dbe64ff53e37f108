//go:build integration

package oracle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/runner"
)

// linesNotes builds testdata/lines.c with gcc --coverage and returns its notes
// file read by ReadNotes, and the build directory.
func linesNotes(t *testing.T) (*Notes, string) {
	t.Helper()
	dir := coverageBuild(t, needTools(t))
	data, err := os.ReadFile(filepath.Join(dir, "lines.gcno"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := ReadNotes(data)
	if err != nil {
		t.Fatal(err)
	}
	return n, dir
}

// TestReadNotes checks the notes reader against gcc's own gcov-dump -l on the same
// file: the same functions, and for every block the same lines and arcs.
func TestReadNotes(t *testing.T) {
	n, dir := linesNotes(t)
	var got []string
	for _, f := range n.Funcs {
		got = append(got, fmt.Sprintf("func %s %s:%d", f.Name, f.File, f.Line))
		for b, bl := range f.Blocks {
			if len(bl.Succs) > 0 {
				var s []string
				for _, a := range bl.Succs {
					s = append(s, fmt.Sprintf("%d fake=%v", a.To, a.Fake))
				}
				got = append(got, fmt.Sprintf("arcs %d: %s", b, strings.Join(s, ", ")))
			}
			if len(bl.Lines) > 0 {
				var s []string
				for _, l := range bl.Lines {
					s = append(s, fmt.Sprintf("%s:%d", l.File, l.Line))
				}
				got = append(got, fmt.Sprintf("lines %d: %s", b, strings.Join(s, ", ")))
			}
		}
	}
	dump, err := command(dir, "gcov-dump", "-l", "lines.gcno")
	if err != nil {
		t.Fatal(err)
	}
	want := parseGcovDump(t, string(dump))
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadNotes disagrees with gcov-dump -l:\ngot  %q\nwant %q", got, want)
	}
}

// TestSingleBlockLines checks which lines of testdata/lines.c gcov counts as one
// block, as its comments derive them.
func TestSingleBlockLines(t *testing.T) {
	n, _ := linesNotes(t)
	got := n.SingleBlockLines("testdata/lines.c")
	// Line 9 (the for header) is in three chains; every other line with code is in one.
	want := map[int]bool{5: true, 7: true, 8: true, 10: true, 11: true, 12: true, 13: true, 14: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SingleBlockLines = %v, want %v", keys(got), keys(want))
	}
}

// TestParseGcovJSON reads gcov's JSON report of testdata/lines.c and checks the
// counts its loop makes: f runs 10 times in the loop and twice after it.
func TestParseGcovJSON(t *testing.T) {
	tl := needTools(t)
	dir := coverageBuild(t, tl)
	js, err := command(dir, tl.Gcov, "--json-format", "--stdout", "-b", "lines.gcda")
	if err != nil {
		t.Fatal(err)
	}
	reps, err := ParseGcovJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1", len(reps))
	}
	f := reps[0].File("testdata/lines.c")
	if f == nil {
		t.Fatalf("no report of testdata/lines.c in %+v", reps[0])
	}
	got := f.LineCounts()
	want := map[int]uint64{5: 12, 7: 1, 8: 1, 10: 10, 11: 1, 12: 1, 13: 1, 14: 1}
	for l, c := range want {
		if got[l] != c {
			t.Errorf("line %d: count %d, want %d", l, got[l], c)
		}
	}
	calls := map[string]uint64{}
	for _, fn := range f.Functions {
		calls[fn.Name] = fn.ExecutionCount
	}
	if calls["f"] != 12 || calls["main"] != 1 {
		t.Errorf("call counts %v, want f 12, main 1", calls)
	}
	if _, err := ParseGcovJSON(strings.NewReader(`{"format_version": "2", "files": []}`)); err == nil {
		t.Error("ParseGcovJSON accepted an unknown format version")
	}
}

// TestFileAsGiven checks that a report names the source file as it was given to
// fragprof: here an absolute path whose directory shares more than "/" with the
// working directory. clang records such a file in the functions' DIFile with a
// filename relative to the common prefix and that prefix as directory
// (filename: "testdata/lines.c", directory: ".../internal/oracle" when run from
// .../internal/oracle/selectseeds); a reader that drops the directory reports a
// name that is neither what was given nor a path that opens from the working
// directory.
func TestFileAsGiven(t *testing.T) {
	tl := needTools(t)
	src, err := filepath.Abs("testdata/lines.c")
	if err != nil {
		t.Fatal(err)
	}
	cwd, err := filepath.Abs("selectseeds")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	for _, tc := range toolchains(tl) {
		dir := t.TempDir()
		var msg bytes.Buffer
		bin := filepath.Join(dir, "prog")
		if _, err := tc.Build(context.Background(), &msg, build.Spec{Sources: []string{src}}, dir, bin); err != nil {
			t.Fatalf("%v\n%s", err, msg.String())
		}
		d, _, err := runner.Run(context.Background(), runner.Command{Path: bin, Stdout: &msg, Stderr: &msg, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		p, err := d.Profile()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.Program.Funcs {
			if f.File != src {
				_, serr := os.Stat(f.File)
				t.Errorf("clang %d: function %s is reported in file %q, want %q as given (stat from the working directory: %v)",
					tc.Major, f.Name, f.File, src, serr)
			}
		}
	}
}

// TestRuntimeConcurrent builds the runtime from several goroutines at once into an
// empty cache, as parallel in-process builds (tests, or a command that builds
// several programs) do on first use. Every call must succeed and return the same
// object.
func TestRuntimeConcurrent(t *testing.T) {
	tl := needTools(t)
	for round := 0; round < 3; round++ {
		t.Setenv("FRAGPROF_CACHE", t.TempDir())
		const n = 4
		objs, errs := make([]string, n), make([]error, n)
		var wg sync.WaitGroup
		for k := 0; k < n; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				objs[k], errs[k] = tl.Clang14.Runtime(context.Background())
			}()
		}
		wg.Wait()
		for k := 0; k < n; k++ {
			if errs[k] != nil {
				t.Errorf("round %d, call %d: %v", round, k, errs[k])
			} else if objs[k] != objs[0] {
				t.Errorf("round %d, call %d: object %s, call 0: %s", round, k, objs[k], objs[0])
			}
		}
	}
}
