package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	if err := Write(name, []byte("one")); err != nil {
		t.Fatal(err)
	}
	// A failing render leaves the old file whole and no temporary behind.
	err := WriteWith(name, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("render failed")
	})
	if err == nil {
		t.Fatal("WriteWith returned no error")
	}
	if data, _ := os.ReadFile(name); string(data) != "one" {
		t.Errorf("file holds %q after a failed write, want %q", data, "one")
	}
	if ents, _ := os.ReadDir(filepath.Dir(name)); len(ents) != 1 {
		t.Errorf("%d files in the directory, want 1", len(ents))
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestErrorsNameTheFile: a failed write names the file asked for, never the
// temporary file.
func TestErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{filepath.Join(dir, "no", "such", "dir", "out.json"), dir} {
		err := Write(name, []byte("x"))
		if err == nil || !strings.HasPrefix(err.Error(), "write "+name+": ") || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("Write(%s): %v", name, err)
		}
	}
}
