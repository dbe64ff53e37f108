package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestWriteNonRegular: a pipe (as /dev/null or /dev/stdout would be, a device) is
// written in place and stays a pipe; a rename over it would have replaced it with a
// regular file — run as root over /dev/null, that broke the whole machine.
func TestWriteNonRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo) // blocks until the writer opens the pipe
		got <- b
	}()
	if err := Write(fifo, []byte("report\n")); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "report\n" {
		t.Errorf("read %q from the pipe, want %q", b, "report\n")
	}
	fi, err := os.Lstat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is %v after Write, want it still a named pipe", fifo, fi.Mode())
	}
}

// TestWriteThroughLink: writing to a symbolic link replaces the file it names and
// leaves the link in place.
func TestWriteThroughLink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone after Write: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want %q", b, "new")
	}
}

// TestWriteOr: a name gets the rendering atomically (a failure leaves it as it
// was), no name sends it to the writer given.
func TestWriteOr(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	var direct strings.Builder
	render := func(w io.Writer) error { _, err := io.WriteString(w, "graph"); return err }
	if err := WriteOr(name, &direct, render); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(name); string(data) != "graph" || direct.Len() != 0 {
		t.Errorf("named file: %q in the file, %q to the writer; want all in the file", data, direct.String())
	}
	failing := func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("render failed") }
	if err := WriteOr(name, &direct, failing); err == nil {
		t.Error("a failing render into a file returned no error")
	}
	if data, _ := os.ReadFile(name); string(data) != "graph" {
		t.Errorf("the file holds %q after a failed render, want %q", data, "graph")
	}
	if err := WriteOr("", &direct, render); err != nil || direct.String() != "graph" {
		t.Errorf("no name: %v, %q to the writer; want %q", err, direct.String(), "graph")
	}
}
