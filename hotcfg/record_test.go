package hotcfg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordWithoutDecoder: a record read where no decoder is linked is an error
// that says what the file is, not a malformed batches file.
func TestRecordWithoutDecoder(t *testing.T) {
	saved := DecodeRecord
	DecodeRecord = nil
	defer func() { DecodeRecord = saved }()
	file := filepath.Join(t.TempDir(), "r.batches")
	if err := os.WriteFile(file, []byte(RecordMagic+"\nraw 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadBatchFiles([]string{file})
	if err == nil || !strings.Contains(err.Error(), "a record of an in-process sampled run") || !strings.HasPrefix(err.Error(), file+": ") {
		t.Errorf("error %v", err)
	}
}
