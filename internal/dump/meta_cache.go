// This file caches decoded metadata blobs: a Monte Carlo run reads thousands of dumps
// of one binary, whose blobs are identical.

package dump

import (
	"sync"

	"github.com/fragprof/fragprof/internal/instrument"
)

// A cached blob is decoded once: the first to ask decodes it, the others wait for
// done.
type cached struct {
	done chan struct{}
	u    *instrument.Unit
	err  error
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*cached{}
)

// maxCached bounds the cache; past it, blobs are decoded every time.
const maxCached = 64

// decodeMeta decodes a unit's metadata blob, once per distinct blob. The returned
// unit is shared and must not be modified, so that every dump of one binary yields
// the same *cfg.Func values (the fold compares them by pointer, and by checksum
// otherwise). Two workers' first trials arrive together: the second waits for the
// first's decoding (sqlite3.c's blob: 90 ms of both CPUs) instead of doing it again.
func decodeMeta(blob []byte) (*instrument.Unit, error) {
	cacheMu.Lock()
	c, ok := cache[string(blob)]
	if !ok && len(cache) < maxCached {
		c = &cached{done: make(chan struct{})}
		cache[string(blob)] = c
	}
	cacheMu.Unlock()
	switch {
	case ok:
		<-c.done
		return c.u, c.err
	case c == nil: // the cache is full
		return instrument.Decode(blob)
	}
	c.u, c.err = instrument.Decode(blob)
	close(c.done)
	return c.u, c.err
}
