// This file reads the files a report is made from: profile files and the JSON that
// `freq --json`, `count --json`, `cfg --format json` and `hotcfg` write.

package html

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fragprof/fragprof/internal/jsonerr"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/profile"
)

// ErrFormat is returned by Decode for data it does not recognise.
var ErrFormat = errors.New("neither a profile file, a dump file (FRAGPROF_OUT) nor fragprof JSON (freq, count, cfg, hotcfg, time or compose --json)")

// Decode builds the page of a result file's contents: a profile file (.fpp), or the
// JSON of freq, count, cfg, hotcfg, time or compose, told apart by their keys.
func Decode(data []byte, src report.Sources) (*Page, error) {
	if profile.IsProfile(data) {
		p, err := profile.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return FromProfile(p, src)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			return nil, fmt.Errorf("reading JSON: %w", jsonerr.Explain(data, err))
		}
		return nil, ErrFormat
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	switch {
	case has("measured_total") && has("scheme"):
		return decodeCompose(data)
	case has("fragments") && has("timer"):
		return decodeTime(data)
	case has("functions") && has("trials"):
		return decodeFreq(data, src)
	case has("functions"):
		return decodeCount(data, src)
	}
	return nil, ErrFormat
}
