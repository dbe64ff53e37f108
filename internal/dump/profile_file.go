// This file reads what the commands that take profile files accept: a profile file,
// or the dump file a program built by fragprof wrote for FRAGPROF_OUT, turned into a
// profile as `fragprof count` turns its own run's dump into one.

package dump

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fragprof/fragprof/profile"
)

// ReadRun reads the dump file path that a run's processes wrote for FRAGPROF_OUT and
// adds to it PATH.forks, where in continuous mode the run's other processes add their
// counts (docs/runtime.md, "Continuous mode"), when there is one. name is used in
// errors. An error reading path itself is the *fs.PathError of os.Open or of the read.
func ReadRun(name, path string) (*Dump, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	data, err = ReadFile(path + ".forks")
	if err != nil {
		return d, nil
	}
	f, err := Parse(name+" (its forked and exec'd processes)", data)
	if err != nil {
		return nil, err
	}
	if err := d.Add(f); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}

// IsDump reports whether data starts like a dump: a dump file (FileMagic) or a bare
// dump (Magic).
func IsDump(data []byte) bool {
	return bytes.HasPrefix(data, []byte(FileMagic)) || bytes.HasPrefix(data, []byte(Magic))
}

// ReadProfile reads the file path as a profile: a profile file (profile.ParseFile),
// or a dump (ReadRun) whose counts it reconstructs with Dump.Profile, as `fragprof
// count` does with its run's dump; warnings are then the dump's (Dump.Warnings).
// A dump names no binary: the profile's Identity is empty where count's names the
// binary and its build-id. A file that is neither is a *NeitherError.
func ReadProfile(path string) (p *profile.Profile, warnings []string, err error) {
	head, err := readHead(path, len(FileMagic))
	if err != nil {
		return nil, nil, err
	}
	if IsDump(head) {
		d, err := ReadRun(path, path)
		if err != nil {
			return nil, nil, err
		}
		if p, err = d.Profile(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return p, d.Warnings, nil
	}
	p, err = profile.ParseFile(path)
	var fe *profile.FormatError
	if err != nil && !profile.IsProfile(head) && errors.As(err, &fe) {
		return nil, nil, &NeitherError{Name: path}
	}
	return p, nil, err
}

// readHead returns the first n bytes of the file path, fewer if it is shorter.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	k, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return head[:k], nil
}

// A NeitherError is a file given as a profile that is neither a profile file nor a
// dump.
type NeitherError struct{ Name string }

func (e *NeitherError) Error() string {
	return e.Name + ": bad magic: neither a fragprof profile file (written by --profile or merge) nor a dump file (written for FRAGPROF_OUT by a program built with 'fragprof cc')"
}
