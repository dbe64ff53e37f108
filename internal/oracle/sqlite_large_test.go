//go:build integration && large

// The SQLite test is large (sqlite3.c, the SQLite amalgamation, is 270,000 lines): it
// runs under `make test-large` (go test -tags 'integration large'), which fetches the
// amalgamation with scripts/sqlite.sh and names its directory in FRAGPROF_SQLITE.

package oracle

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// maxGcovMismatch bounds the share of sqlite3.c's single-block lines whose counts may
// differ from gcov's (line attribution; 135 of 38,354 with clang 14, the same with
// and without promotion).
const maxGcovMismatch = 0.005

// TestSQLiteGcov builds sqlite3.c with a SQL workload appended
// (testdata/sqlite_workload.c.in) by fragprof with clang 14 — Debian's default, whose
// typed-pointer IR fragprof once mistook for opaque on this file — at -O2 (counters
// promoted out of loops) and at -O0 (none promoted), and by gcc --coverage. The two
// fragprof builds must give the same counts exactly. Against gcov, a few lines in a
// thousand differ where gcc and clang attribute a multi-line expression's parts to
// different lines (a call whose arguments span two lines is entered twice for gcov;
// a line continuing an || condition belongs to another block); those are logged and
// must stay under maxGcovMismatch of the single-block lines compared. Last, the
// simplified CFG (count --simplified) of the same program must print the same, have
// fewer blocks and count every function's calls as the source-level CFG does.
func TestSQLiteGcov(t *testing.T) {
	dir := os.Getenv("FRAGPROF_SQLITE")
	if dir == "" {
		t.Fatal("FRAGPROF_SQLITE must name the directory of sqlite3.c (make test-large runs scripts/sqlite.sh)")
	}
	tl := needTools(t)
	amalg, err := os.ReadFile(filepath.Join(dir, "sqlite3.c"))
	if err != nil {
		t.Fatal(err)
	}
	work, err := os.ReadFile("testdata/sqlite_workload.c.in")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "sqlite3_workload.c")
	if err := os.WriteFile(src, append(amalg, work...), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "sqlite3", Source: src,
		CFlags: []string{"-I", dir, "-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION", "-w"}}
	g, err := gcovOf(p, tl)
	if err != nil {
		t.Fatal(err)
	}
	if g.Side.Report == nil {
		t.Fatal("gcc's build wrote no coverage data")
	}
	r, err := fragprof(p, tl.Clang14, "-O2")
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Stdout) != string(g.Stdout) {
		t.Fatalf("fragprof's build printed %q, gcc's %q", clip(r.Stdout), clip(g.Stdout))
	}
	r0, err := fragprof(p, tl.Clang14, "-O0")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r0.JSON, r.JSON) {
		t.Errorf("the counts at -O0 and -O2 differ: %s", firstDiff(&r0.JSON, &r.JSON))
	}
	c := Compare(&r.JSON, g.Side, r.MainReturned)
	for _, m := range c.Mismatches {
		t.Logf("%s", m)
	}
	if float64(len(c.Mismatches)) > maxGcovMismatch*float64(c.CountLines) {
		t.Errorf("%d lines differ from gcov (of %d single-block lines): more than %.1f%%", len(c.Mismatches), c.CountLines, 100*maxGcovMismatch)
	}
	if c.CountLines < 10000 {
		t.Errorf("only %d single-block lines compared: the line tables hardly meet", c.CountLines)
	}
	t.Logf("sqlite3.c: %d single-block line counts, %d executed-or-not lines, %d call counts compared with gcov", c.CountLines, c.ExecLines, c.Funcs)

	// The simplified CFG (count --simplified): the same output, fewer blocks, and
	// every function that runs called as often as in the source-level CFG's counts
	// (the simplification inlines nothing).
	rs, err := fragprofCFG(p, tl.Clang14, "-O2", true)
	if err != nil {
		t.Fatal(err)
	}
	if string(rs.Stdout) != string(r.Stdout) {
		t.Fatalf("the simplified build printed %q, the other %q", clip(rs.Stdout), clip(r.Stdout))
	}
	deref := func(p *uint64) uint64 {
		if p == nil {
			return 0
		}
		return *p
	}
	calls := map[string]uint64{}
	blocks, sblocks := 0, 0
	for _, f := range r.JSON.Functions {
		calls[f.Name] = deref(f.Calls)
		blocks += len(f.Blocks)
	}
	for _, f := range rs.JSON.Functions {
		sblocks += len(f.Blocks)
		if want, ok := calls[f.Name]; !ok || deref(f.Calls) != want {
			t.Errorf("simplified CFG: %s called %d times, the source-level CFG %d (present: %v)", f.Name, deref(f.Calls), want, ok)
		}
	}
	if sblocks >= blocks {
		t.Errorf("the simplified CFG has %d blocks, the source-level one %d", sblocks, blocks)
	}
	t.Logf("sqlite3.c, simplified CFG: %d functions, %d blocks (source-level: %d, %d)", len(rs.JSON.Functions), sblocks, len(r.JSON.Functions), blocks)
}
