package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

func TestPtrAndOrZero(t *testing.T) {
	type row struct {
		A *float64 `json:"a"`
		B float64  `json:"b"`
	}
	for _, c := range []struct {
		x    float64
		want string
	}{
		{1.5, `{"a":1.5,"b":1.5}`},
		{0, `{"a":0,"b":0}`},
		{-2e300, `{"a":-2e+300,"b":-2e+300}`},
		{math.NaN(), `{"a":null,"b":0}`},
		{math.Inf(1), `{"a":null,"b":0}`},
		{math.Inf(-1), `{"a":null,"b":0}`},
	} {
		out, err := json.Marshal(row{Ptr(c.x), OrZero(c.x)})
		if err != nil {
			t.Fatalf("%g: %v", c.x, err)
		}
		if string(out) != c.want {
			t.Errorf("%g: %s, want %s", c.x, out, c.want)
		}
	}
}
