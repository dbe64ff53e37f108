package instrument

// This file holds the helpers that the unit tests and the integration tests (the
// files marked //go:build integration) share.

import (
	"github.com/fragprof/fragprof/cfg"
)

// entryReentries is the flow into the entry block from its predecessors.
func entryReentries(f *cfg.Func, c cfg.Counts) uint64 {
	var n uint64
	for _, e := range f.Entry().Preds {
		n += c.Edges[e.ID]
	}
	return n
}
