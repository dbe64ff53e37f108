package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestHotcfgBadFiles: a batches file cut mid-line is an error naming its file and
// line; --compare with a batches file (or anything but an exact graph) says what it
// wants instead of a JSON decoder's error.
func TestHotcfgBadFiles(t *testing.T) {
	whole := "fragprof-batches 1\ni 401000 4 other\ni 401004 4 other\nb 1 10 7 7 401000 401004\nb 2 20 7 7 401000 401004\n"
	dir := writeFiles(t, t.TempDir(), map[string]string{"cut.batches": whole[:len(whole)-4], "run.batches": whole})
	at := func(n string) string { return filepath.Join(dir, n) }
	_, stderr, code := cli(t, "", "hotcfg", at("cut.batches"))
	if code != 1 || !strings.Contains(stderr, at("cut.batches")+":5: the last line is cut short") {
		t.Errorf("hotcfg of a cut file: exit %d\n%s", code, stderr)
	}
	_, stderr, code = cli(t, "", "hotcfg", at("run.batches"), "--compare", at("run.batches"))
	if code != 1 || !strings.Contains(stderr, "--compare "+at("run.batches")+" is a batches file") || internalText.MatchString(stderr) {
		t.Errorf("hotcfg --compare of a batches file: exit %d\n%s", code, stderr)
	}
	var v any
	if json.Unmarshal([]byte(stderr), &v) == nil {
		t.Errorf("stderr is JSON: %s", stderr)
	}
}
