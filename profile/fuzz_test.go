package profile

import (
	"bytes"
	"hash/crc32"
	"math/rand"
	"reflect"
	"runtime"
	"testing"
)

// memCheck measures allocations around each Parse (ReadMemStats stops the world,
// which slows fuzzing by a third; worth it).
var memCheck = true

func crc32Sum(b []byte) uint32 { return crc32.Checksum(b, crcTable()) }

// FuzzParse: Parse never panics and never allocates much more than its input on
// any input. Every input is tried twice: as it is, and with its checksum and size
// fields made right, so that the fuzzer reaches the checks behind the checksum.
func FuzzParse(f *testing.F) {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(10)), 4)
	var b bytes.Buffer
	p.Write(&b)
	f.Add(b.Bytes())
	// Profiles with a statistics section: exact tables, and buckets.
	for _, spread := range []int64{20, 1 << 40} {
		var sb bytes.Buffer
		statsProfile(trialRuns(7, 1100, spread)).Write(&sb)
		f.Add(sb.Bytes())
	}
	// A profile with an identity section.
	p.Identity = Identity{Name: "prog.c", BuildID: "abcd"}
	var ib bytes.Buffer
	p.Write(&ib)
	f.Add(ib.Bytes())
	// A profile with a rates section.
	var rb bytes.Buffer
	ratesProfile().Write(&rb)
	f.Add(rb.Bytes())
	f.Add([]byte(Magic))
	f.Add(make([]byte, headerSize))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(in []byte) {
			var before, after runtime.MemStats
			if memCheck {
				runtime.ReadMemStats(&before)
			}
			q, err := Parse(bytes.NewReader(in))
			if memCheck {
				runtime.ReadMemStats(&after)
			}
			// Allowance: ReadAll's doubling, the parsed graph (a few hundred bytes per
			// block, and every block needs 12 bytes of input), and a fixed 1 MiB.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(64*len(in))+1<<20 {
				t.Fatalf("Parse of %d bytes allocated %d bytes", len(in), grew)
			}
			if err == nil {
				// What parses writes back and parses again to the same profile.
				var out bytes.Buffer
				if err := q.Write(&out); err != nil {
					t.Fatalf("Write after Parse: %v", err)
				}
				r, err := Parse(bytes.NewReader(out.Bytes()))
				if err != nil {
					t.Fatalf("re-parse: %v", err)
				}
				if r.String() != q.String() || !reflect.DeepEqual(r.Stats, q.Stats) || r.Identity != q.Identity {
					t.Fatalf("round trip changed the profile")
				}
			}
		}
		check(data)
		if len(data) >= headerSize {
			fixed := append([]byte(nil), data...)
			copy(fixed, Magic)
			le.PutUint16(fixed[8:], Major)
			le.PutUint32(fixed[12:], headerSize)
			le.PutUint64(fixed[16:], uint64(len(fixed)))
			le.PutUint32(fixed[28:], 0)
			le.PutUint32(fixed[28:], crc32Sum(fixed))
			check(fixed)
		}
	})
}
