// This file caches decoded metadata blobs: a Monte Carlo run reads thousands of dumps
// of one binary, whose blobs are identical.

package dump

import (
	"sync"

	"github.com/fragprof/fragprof/internal/instrument"
)

var (
	cacheMu sync.Mutex
	cache   = map[string]*instrument.Unit{}
)

// maxCached bounds the cache; past it, blobs are decoded every time.
const maxCached = 64

// decodeMeta decodes a unit's metadata blob, once per distinct blob. The returned
// unit is shared and must not be modified, so that every dump of one binary yields
// the same *cfg.Func values.
func decodeMeta(blob []byte) (*instrument.Unit, error) {
	cacheMu.Lock()
	u, ok := cache[string(blob)]
	cacheMu.Unlock()
	if ok {
		return u, nil
	}
	u, err := instrument.Decode(blob)
	if err != nil {
		return nil, err
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if first, ok := cache[string(blob)]; ok {
		// Decoded meanwhile by another goroutine (two workers' first trials): keep
		// one unit, so that every dump of the binary shares its *cfg.Func values
		// (the fold compares them by pointer, and by checksum otherwise).
		return first, nil
	}
	if len(cache) < maxCached {
		cache[string(blob)] = u
	}
	return u, nil
}
