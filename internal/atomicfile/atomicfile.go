// Package atomicfile writes files so that a reader never sees a partial one: the data
// goes to a temporary file in the same directory, which is then renamed into place.
// Profiles, reports and cached runtime objects are all written this way.
package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to name atomically, with mode 0644.
func Write(name string, data []byte) error {
	return WriteWith(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith renders into name atomically: if render fails, name is left as it was.
func WriteWith(name string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
