//go:build large

// The SQLite test is large (sqlite3.c, the SQLite amalgamation, is 270,000 lines): it
// runs under `make test-large` (go test -tags large), which fetches the amalgamation
// with scripts/sqlite.sh and names its directory in FRAGPROF_SQLITE.

package oracle

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSQLiteGcov builds sqlite3.c with a SQL workload appended
// (testdata/sqlite_workload.c.in) by fragprof with clang 14 — Debian's default, whose
// typed-pointer IR fragprof once mistook for opaque on this file — and by gcc
// --coverage, and compares every single-block line's count with gcov's.
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
	c := Compare(&r.JSON, g.Side, r.MainReturned)
	for _, m := range c.Mismatches {
		t.Errorf("%s", m)
	}
	if c.CountLines < 10000 {
		t.Errorf("only %d single-block lines compared: the line tables hardly meet", c.CountLines)
	}
	t.Logf("sqlite3.c: %d single-block line counts, %d executed-or-not lines, %d call counts compared with gcov", c.CountLines, c.ExecLines, c.Funcs)
}
