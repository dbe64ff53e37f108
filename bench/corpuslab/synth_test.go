package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSynthCorpus: the files are a function of the seed and their index (the
// first 50 of 200 are the 50 of a corpus of 50, another seed gives other files),
// no file is over the largest size, and 200 files hold every kind.
func TestSynthCorpus(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, n int, seed string) map[string][]byte {
		out := filepath.Join(dir, name)
		if err := synthCorpus([]string{"-n", itoa(n), "-seed", seed, "-max-size", "4096", "-o", out}); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		es, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			b, err := os.ReadFile(filepath.Join(out, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = b
		}
		return files
	}
	big, small, other := mk("a", 200, "5"), mk("b", 50, "5"), mk("c", 50, "6")
	if len(big) != 200 || len(small) != 50 {
		t.Fatalf("%d and %d files, want 200 and 50", len(big), len(small))
	}
	same := 0
	for name, b := range small {
		if !bytes.Equal(big[name], b) {
			t.Errorf("%s differs between corpora of 200 and 50 files of the same seed", name)
		}
		if bytes.Equal(other[name], b) {
			same++
		}
	}
	if same > 5 {
		t.Errorf("%d of 50 files are the same under seeds 5 and 6", same)
	}
	kinds := map[string]int{}
	for name, b := range big {
		if len(b) > 4096 {
			t.Errorf("%s has %d bytes, over 4096", name, len(b))
		}
		kinds[name[strings.LastIndexByte(name, '.')+1:]]++
	}
	for _, k := range synthKinds {
		if kinds[k.name] == 0 {
			t.Errorf("no file of kind %s among 200: %v", k.name, kinds)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
