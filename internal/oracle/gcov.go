// This file reads the JSON that gcov --json-format prints (gcc ≥ 9, format version 1).

package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
)

// A GcovReport is the object gcov --json-format prints for one data file.
type GcovReport struct {
	GCCVersion    string     `json:"gcc_version"`
	FormatVersion string     `json:"format_version"`
	DataFile      string     `json:"data_file"`
	Files         []GcovFile `json:"files"`
}

// A GcovFile is one source file's lines and functions.
type GcovFile struct {
	File      string         `json:"file"`
	Lines     []GcovLine     `json:"lines"`
	Functions []GcovFunction `json:"functions"`
}

// A GcovLine is one source line that holds code.
type GcovLine struct {
	LineNumber      int          `json:"line_number"`
	FunctionName    string       `json:"function_name"`
	Count           uint64       `json:"count"`
	UnexecutedBlock bool         `json:"unexecuted_block"`
	Branches        []GcovBranch `json:"branches"` // filled only with gcov -b
}

// A GcovBranch is a conditional arc leaving a block that ends on the line.
type GcovBranch struct {
	Count       uint64 `json:"count"`
	Fallthrough bool   `json:"fallthrough"`
	Throw       bool   `json:"throw"`
}

// A GcovFunction is one function's summary.
type GcovFunction struct {
	Name           string `json:"name"`
	StartLine      int    `json:"start_line"`
	EndLine        int    `json:"end_line"`
	Blocks         int    `json:"blocks"`
	BlocksExecuted int    `json:"blocks_executed"`
	ExecutionCount uint64 `json:"execution_count"`
}

// ParseGcovJSON reads the output of gcov --json-format --stdout: one JSON object per
// data file, concatenated.
func ParseGcovJSON(r io.Reader) ([]*GcovReport, error) {
	dec := json.NewDecoder(r)
	var out []*GcovReport
	for {
		var g GcovReport
		err := dec.Decode(&g)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("gcov JSON: %w", err)
		}
		if g.FormatVersion != "1" {
			return nil, fmt.Errorf("gcov JSON format version %q; this reader knows version 1 (gcc 9 to 13)", g.FormatVersion)
		}
		out = append(out, &g)
	}
}

// File returns the report of the source file named name (compared after
// filepath.Clean), or nil.
func (g *GcovReport) File(name string) *GcovFile {
	for i := range g.Files {
		if filepath.Clean(g.Files[i].File) == filepath.Clean(name) {
			return &g.Files[i]
		}
	}
	return nil
}

// LineCounts returns the count of every line the file reports, by line number.
func (f *GcovFile) LineCounts() map[int]uint64 {
	m := make(map[int]uint64, len(f.Lines))
	for _, l := range f.Lines {
		m[l.LineNumber] += l.Count
	}
	return m
}
