// Package jsonerr turns encoding/json's errors about a user's file into messages that
// name the line and column of the fault and what was wanted there, instead of the
// decoder's byte offsets and Go type names.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Position returns the 1-based line and column of byte offset off in data.
func Position(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

var reUnknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^json: unknown field "(.*)"$`) })

// Explain rewrites err, returned by decoding data, as "line L, column C: what is
// wrong". Errors it does not know are returned unchanged.
func Explain(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		l, c := Position(data, se.Offset-1) // Offset counts the offending byte
		return fmt.Errorf("line %d, column %d: not valid JSON: %s", l, c, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		l, c := Position(data, te.Offset)
		field := ""
		if te.Field != "" {
			field = fmt.Sprintf("field %q: ", te.Field)
		}
		return fmt.Errorf("line %d, column %d: %sgot a JSON %s, want %s", l, c, field, te.Value, kind(te.Type.Kind().String()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		l, c := Position(data, int64(len(data)))
		return fmt.Errorf("line %d, column %d: the JSON ends early (a truncated file?)", l, c)
	case errors.Is(err, io.EOF):
		return errors.New("the file is empty")
	}
	if m := reUnknownField().FindStringSubmatch(err.Error()); m != nil {
		if i := bytes.Index(data, []byte(`"`+m[1]+`"`)); i >= 0 {
			l, c := Position(data, int64(i))
			return fmt.Errorf("line %d, column %d: unknown field %q", l, c, m[1])
		}
		return fmt.Errorf("unknown field %q", m[1])
	}
	return err
}

// kind names a Go kind as a JSON user knows it.
func kind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice", k == "array":
		return "an array"
	case k == "map", k == "struct":
		return "an object"
	}
	return k
}
