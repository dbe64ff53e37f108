// This file expands the sparse form in which a fork server sends a trial's dump.

package dump

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Expand writes to dst (reused when it has room) the dump of n bytes whose sparse
// form is src, and returns it. The sparse form (runtime/c/rt_dump.c,
// __fragprof_sparse) is the dump with each unit's counters replaced by u32 nruns
// and nruns runs of non-zero counters, each u32 first, u32 length and the length
// counters; the counters outside the runs are 0. A trial of a large program sets few
// of its counters (sqlite3: 100,000 counters, 800 KB a dump), and the fork server
// sends only those. An error says how src is not a sparse dump of n bytes.
func Expand(dst, src []byte, n int) ([]byte, error) {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("not a sparse dump: %s", fmt.Sprintf(f, a...))
	}
	if n < 32 || n > maxSize || len(src) < 32 || !bytes.Equal(src[:8], []byte(Magic)) {
		return dst, bad("bad header or a length of %d", n)
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	le := binary.LittleEndian
	copy(dst, src[:32])
	units := le.Uint32(src[12:])
	flags := le.Uint32(src[28:])
	if flags&flagContinuous != 0 {
		return dst, bad("a continuous dump")
	}
	in, out := 32, 32
	for i := uint32(0); i < units; i++ {
		if in+8 > len(src) || out+8 > n {
			return dst, bad("truncated at unit %d", i)
		}
		nc, ml := int(le.Uint32(src[in:])), int(le.Uint32(src[in+4:]))
		if ml == refML {
			ml = 8
		}
		head := 8 + ml + (8-ml%8)%8
		if ml > maxSize || nc > maxSize/8 || in+head+4 > len(src) || out+head+8*nc > n {
			return dst, bad("truncated at unit %d", i)
		}
		copy(dst[out:], src[in:in+head])
		in += head
		out += head
		ctr := dst[out : out+8*nc]
		clear(ctr)
		runs := le.Uint32(src[in:])
		in += 4
		for r := uint32(0); r < runs; r++ {
			if in+8 > len(src) {
				return dst, bad("truncated in unit %d's runs", i)
			}
			first, k := int(le.Uint32(src[in:])), int(le.Uint32(src[in+4:]))
			in += 8
			if first > nc || k > nc-first || in+8*k > len(src) {
				return dst, bad("run %d of unit %d out of its %d counters", r, i, nc)
			}
			copy(ctr[8*first:], src[in:in+8*k])
			in += 8 * k
		}
		out += 8 * nc
	}
	if flags&flagFault != 0 {
		if in+faultSize > len(src) || out+faultSize > n {
			return dst, bad("truncated fault record")
		}
		copy(dst[out:], src[in:in+faultSize])
		in += faultSize
		out += faultSize
	}
	if in != len(src) || out != n {
		return dst, bad("%d bytes expand to %d, not %d", in, out, n)
	}
	return dst, nil
}
