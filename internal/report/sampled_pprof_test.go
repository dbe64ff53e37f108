package report

import (
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
)

// TestSampledPprofStacks checks that a PC's stack is its burst's stack followed through the
// burst's calls and returns: a call pushes its return address, a return pops it.
func TestSampledPprofStacks(t *testing.T) {
	code := hotcfg.InsnTable{
		0x100: {Addr: 0x100, Len: 5, Kind: hotcfg.Call, Target: 0x200},
		0x200: {Addr: 0x200, Len: 1, Kind: hotcfg.Other},
		0x201: {Addr: 0x201, Len: 1, Kind: hotcfg.Return},
		0x105: {Addr: 0x105, Len: 1, Kind: hotcfg.Return},
		0x900: {Addr: 0x900, Len: 1, Kind: hotcfg.Other},
	}
	b := hotcfg.Batch{PCs: []uint64{0x100, 0x200, 0x201, 0x105, 0x900}, Stack: []uint64{0x900}}
	p, err := SampledPprof([]hotcfg.Batch{b}, code, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64][]uint64{}
	for _, s := range p.Sample {
		var addrs []uint64
		for _, l := range s.Location {
			addrs = append(addrs, l.Address)
		}
		got[addrs[0]] = addrs[1:]
		if s.Value[0] != 1 {
			t.Errorf("%#x: value %d", addrs[0], s.Value[0])
		}
	}
	want := map[uint64][]uint64{0x100: {0x900}, 0x200: {0x105, 0x900}, 0x201: {0x105, 0x900}, 0x105: {0x900}, 0x900: {}}
	for pc, w := range want {
		g := got[pc]
		if len(g) != len(w) {
			t.Errorf("%#x: stack %x, want %x", pc, g, w)
			continue
		}
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("%#x: stack %x, want %x", pc, g, w)
			}
		}
	}
}
