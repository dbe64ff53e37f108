// This file keeps the mapped files open for offline decoding.

package sample

import (
	"os"
	"sync"
)

var (
	openMu    sync.Mutex
	openFiles = map[string]*os.File{}
)

// openReaderAt returns a shared open handle on path.
func openReaderAt(path string) (*os.File, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if f, ok := openFiles[path]; ok {
		return f, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	openFiles[path] = f
	return f, nil
}
