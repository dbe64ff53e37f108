package profile

import (
	"bytes"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// ratesProfile is testProgram with counts and a rate on every other edge, the
// others inferred or without an estimate.
func ratesProfile() *Profile {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(12)), 3)
	p.Rates = &Rates{Instructions: 1000, Sampled: 40}
	for _, f := range p.Program.Funcs {
		es := make([]EdgeRate, len(f.Edges))
		for k := range es {
			switch k % 3 {
			case 0:
				es[k] = EdgeRate{Estimated: true, Rate: float64(k+1) / 64, StdErr: 1.0 / 3}
			case 1:
				es[k] = EdgeRate{Estimated: true, Inferred: true, Rate: 0.25}
			}
		}
		p.Rates.Edges = append(p.Rates.Edges, es)
	}
	return p
}

// TestRatesRoundTrip: the rates section is read back bit for bit; a profile
// without rates has no such section, so its bytes are what they were.
func TestRatesRoundTrip(t *testing.T) {
	p := ratesProfile()
	q := mustParse(t, encode(t, p))
	if !reflect.DeepEqual(q.Rates, p.Rates) || len(q.Extra) != 0 {
		t.Errorf("rates %+v, want %+v (extra %v)", q.Rates, p.Rates, q.Extra)
	}
	if !strings.Contains(q.String(), "rates: instructions=1000 sampled=40") {
		t.Errorf("String:\n%s", q)
	}
	p.Rates = nil
	plain := encode(t, p)
	if n := int(le.Uint32(plain[24:])); n != 6 || mustParse(t, plain).Rates != nil {
		t.Errorf("a profile without rates has %d sections (want 6: no rates)", n)
	}
}

// TestRatesBad: a rates section that does not fit its profile, or holds what is
// not a rate, is refused on writing and on reading, saying where.
func TestRatesBad(t *testing.T) {
	p := ratesProfile()
	p.Rates.Edges[0][0].Rate = math.NaN()
	if err := p.Write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN rate written: %v", err)
	}
	p = ratesProfile()
	p.Rates.Edges[0] = p.Rates.Edges[0][1:]
	if err := p.Write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "rates for") {
		t.Errorf("a rate missing written: %v", err)
	}
	// A section whose program hash is not the functions' (left behind by a writer
	// that changed them) is refused.
	p = ratesProfile()
	data := encode(t, p)
	sec := sectionBody(t, data, SecRates)
	sec[0] ^= 1
	if _, err := Parse(bytes.NewReader(fixCRC(data))); err == nil || !strings.Contains(err.Error(), "rates section's program hash") {
		t.Errorf("stale rates section: %v", err)
	}
	// Unknown flags on the first edge.
	data = encode(t, p)
	sec = sectionBody(t, data, SecRates)
	sec[25] |= 0x80
	if _, err := Parse(bytes.NewReader(fixCRC(data))); err == nil || !strings.Contains(err.Error(), "unknown flags") {
		t.Errorf("unknown flags: %v", err)
	}
}

// sectionBody returns the body of the section of type typ in the file data, which
// the caller may change in place.
func sectionBody(t *testing.T, data []byte, typ uint32) []byte {
	t.Helper()
	n, table := int(le.Uint32(data[24:])), int(le.Uint64(data[32:]))
	for i := 0; i < n; i++ {
		e := data[table+secEntry*i:]
		if le.Uint32(e) == typ {
			off, l := le.Uint64(e[8:]), le.Uint64(e[16:])
			return data[off : off+l]
		}
	}
	t.Fatalf("no section of type %d", typ)
	return nil
}

// fixCRC makes the file's checksum right again.
func fixCRC(data []byte) []byte {
	le.PutUint32(data[28:], 0)
	le.PutUint32(data[28:], crc32Sum(data))
	return data
}
