package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	type doc struct {
		N    int      `json:"n"`
		Tags []string `json:"tags"`
	}
	for _, tc := range []struct{ in, want string }{
		{"{\n  \"n\": 1,\n  x\n}", "line 3, column 3: not valid JSON: invalid character 'x' looking for beginning of object key string"},
		{"{\n  \"n\": \"one\"\n}", `line 2, column 13: field "n": got a JSON string, want an integer`},
		{"{\"tags\": 3}", `line 1, column 11: field "tags": got a JSON number, want an array`},
		{"{\n \"n\": 1,", "line 2, column 9: the JSON ends early (a truncated file?)"},
		{"", "the file is empty"},
		{"{\"n\": 1,\n \"colour\": 2}", `line 2, column 2: unknown field "colour"`},
	} {
		dec := json.NewDecoder(strings.NewReader(tc.in))
		dec.DisallowUnknownFields()
		var d doc
		err := Explain([]byte(tc.in), dec.Decode(&d))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}
