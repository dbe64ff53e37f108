// Package atomicfile writes files so that a reader never sees a partial one: the data
// goes to a temporary file in the same directory, which is then renamed into place.
// Profiles, reports and cached runtime objects are all written this way.
package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Write writes data to name atomically, with mode 0644.
func Write(name string, data []byte) error {
	return WriteWith(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith renders into name atomically: if render fails, name is left as it was.
// Errors name the file asked for, never the temporary file.
func WriteWith(name string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	if err := write(name, buf.Bytes()); err != nil {
		return &os.PathError{Op: "write", Path: name, Err: cause(err)}
	}
	return nil
}

// WriteOr renders into name atomically, as WriteWith does, or straight to w when
// name is empty (standard output, say).
func WriteOr(name string, w io.Writer, render func(io.Writer) error) error {
	if name == "" {
		return render(w)
	}
	return WriteWith(name, render)
}

// cause strips the temporary file's name from err: the *os.PathError or
// *os.LinkError's own error (ENOENT, EACCES, EISDIR, ENOSPC...).
func cause(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

func write(name string, data []byte) error {
	// A link is followed, so that the file it names is replaced, not the link.
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target
	}
	if fi, err := os.Stat(name); err == nil {
		switch {
		case fi.IsDir():
			return syscall.EISDIR
		case !fi.Mode().IsRegular():
			// A device, pipe or socket (-o /dev/null, -o /dev/stdout, a FIFO): it cannot
			// be replaced by a rename — which, run as root, would put a regular file in
			// place of /dev/null — and a reader of it never sees a partial file anyway.
			return writeInPlace(name, data)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
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

// writeInPlace writes data to the existing non-regular file name.
func writeInPlace(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
