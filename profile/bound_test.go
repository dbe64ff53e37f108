package profile

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// endless is a reader of zeros without end, as /dev/zero is, that counts what it gave.
type endless struct{ read int64 }

func (z *endless) Read(p []byte) (int, error) {
	clear(p)
	z.read += int64(len(p))
	return len(p), nil
}

// TestParseEndless checks that Parse refuses a stream that does not start like a
// profile after its header's bytes, and one whose header claims more than a profile
// may hold without reading it: before, it read up to MaxFileSize (4 GiB) first.
func TestParseEndless(t *testing.T) {
	z := &endless{}
	_, err := Parse(z)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "bad magic") {
		t.Errorf("Parse(zeros) = %v, want a FormatError about the magic", err)
	}
	if z.read > headerSize {
		t.Errorf("Parse(zeros) read %d bytes, want at most the header's %d", z.read, headerSize)
	}
	// A header of a huge file followed by zeros.
	head := make([]byte, headerSize)
	copy(head, Magic)
	le.PutUint16(head[8:], Major)
	le.PutUint32(head[12:], headerSize)
	le.PutUint64(head[16:], 1<<40)
	z = &endless{}
	_, err = Parse(io.MultiReader(strings.NewReader(string(head)), z))
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "more than a profile may hold") {
		t.Errorf("Parse(a header claiming 1 TiB) = %v, want a FormatError about its size", err)
	}
	if z.read > 0 {
		t.Errorf("Parse(a header claiming 1 TiB) read %d bytes past the header, want none", z.read)
	}
}
