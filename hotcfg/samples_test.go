package hotcfg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBatches writes a batches file of the given batches with loopCode's
// instructions and returns its path.
func writeBatches(t *testing.T, dir, name string, runs string, batches ...Batch) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f)
	w.Info("runs", runs)
	for _, b := range batches {
		w.Batch(b, loopCode)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadBatchFilesAndBuild: batches of several files are read in order with
// their runs summed; Head keeps the first batches and the share of runs they span;
// the bursts algorithm builds the graph of the batches read, counting the exact
// run's instructions once per run.
func TestReadBatchFilesAndBuild(t *testing.T) {
	dir := t.TempDir()
	a := writeBatches(t, dir, "a.batches", "3", loopBatch(4), loopBatch(2))
	b := writeBatches(t, dir, "b.batches", "1", loopBatch(3))
	s, err := ReadBatchFiles([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Batches) != 3 || s.Runs != 4 || len(s.Batches[0].PCs) != 12 || len(s.Batches[2].PCs) != 9 {
		t.Fatalf("read %d batches, %d runs", len(s.Batches), s.Runs)
	}
	if _, ok := s.Code[0x1004]; !ok {
		t.Errorf("the files' instructions were not read: %v", s.Code)
	}
	bu := &Builder{Samples: s, Code: s.Code, Exact: &Graph{Instructions: 100}}
	g := bu.Graph("bursts", Params{})
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	// Back edges seen: 3 + 1 + 2 in the three bursts.
	if len(g.Edges) == 0 || g.Edges[0].Count != 6 || g.Instructions != 400 {
		t.Errorf("graph:\n%s\ninstructions %d, want the back edge 6 times and 400", g, g.Instructions)
	}
	s.Head(2) // 2 of 3 batches: 4·2/3 = 2.67 → 3 runs
	if len(s.Batches) != 2 || s.Runs != 3 {
		t.Errorf("Head(2): %d batches, %d runs; want 2 and 3", len(s.Batches), s.Runs)
	}
	s.Head(5)
	if len(s.Batches) != 2 {
		t.Errorf("Head beyond the batches changed them: %d", len(s.Batches))
	}
}

// TestReadErrors: an empty file, a malformed line and the wrong file given as the
// exact graph are each named.
func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if _, err := ReadBatchFiles([]string{empty}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty file: %v", err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte(Magic+"\nb zz yy\n"), 0o644)
	if _, err := ReadBatchFiles([]string{bad}); err == nil || !strings.Contains(err.Error(), bad+":") {
		t.Errorf("malformed line: %v, want an error naming %s", err, bad)
	}
	batches := writeBatches(t, dir, "x.batches", "1", loopBatch(2))
	if _, err := ReadExact(batches); err == nil || !strings.Contains(err.Error(), "is a batches file") {
		t.Errorf("a batches file as the exact graph: %v", err)
	}
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("[1, 2]"), 0o644)
	if _, err := ReadExact(junk); err == nil || !strings.Contains(err.Error(), "not an exact graph") {
		t.Errorf("junk as the exact graph: %v", err)
	}
	counts := filepath.Join(dir, "counts.json")
	os.WriteFile(counts, []byte(`{"counters": 3, "runs": 1, "functions": []}`), 0o644)
	if _, err := ReadExact(counts); err == nil || !strings.Contains(err.Error(), `without "graph"`) {
		t.Errorf("a JSON document without the graph as the exact graph: %v", err)
	}
}
