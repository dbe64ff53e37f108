// This file converts a profile to pprof's format (github.com/google/pprof/profile),
// so that `go tool pprof` and its web UI open fragprof's counts.

package report

import (
	"io"

	pprof "github.com/google/pprof/profile"

	"github.com/fragprof/fragprof/profile"
)

// Pprof converts p (which must carry counts) to a pprof profile: one function per
// C function (with its file and first line), one location per basic block at the
// file:line where the block starts, and samples valued by executions and by
// executions × instructions (an estimate of IR instructions executed). Samples carry
// the block's label and ID as labels, so that `go tool pprof -tagfocus` selects
// blocks; `-top` ranks functions by block executions, `-list FUNC` shows the count
// of every line that starts a block.
//
// A block's samples have call stacks when its function has known callers (the
// profile's call edges, cfg.Func.CallEdges): the block's count is split among the
// paths up its callers in proportion to the calls made along them, as gprof does
// (callers.go), each caller's frame being the location of the block that calls. The
// parts add up to the block's count exactly, so flat values are those of single-frame
// samples; entries no known call accounts for (main, callbacks, indirect calls) keep
// a sample of the block alone.
func Pprof(p *profile.Profile) (*pprof.Profile, error) {
	out := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "executions", Unit: "count"}, {Type: "instructions", Unit: "count"}},
		PeriodType: &pprof.ValueType{Type: "executions", Unit: "count"},
		Period:     1,
		// pprof shows the last sample type unless told: executions are what users
		// expect from -top.
		DefaultSampleType: "executions",
		Comments:          []string{"fragprof block execution counts"},
	}
	// Every executed block has a location, made before the samples so that a
	// caller's frame finds its block's.
	locs := make([]map[int]*pprof.Location, len(p.Program.Funcs))
	for i, f := range p.Program.Funcs {
		fn := &pprof.Function{ID: uint64(len(out.Function) + 1), Name: f.DisplayName(), SystemName: f.Name, Filename: f.File, StartLine: int64(f.Line)}
		out.Function = append(out.Function, fn)
		locs[i] = map[int]*pprof.Location{}
		for _, b := range f.Blocks {
			if p.Counts[i].Blocks[b.ID] == 0 {
				continue
			}
			line := int64(b.Start.Line)
			if line == 0 || (b.Start.File != "" && b.Start.File != f.File) {
				line = int64(f.Line)
			}
			loc := &pprof.Location{ID: uint64(len(out.Location) + 1), Line: []pprof.Line{{Function: fn, Line: line}}}
			out.Location = append(out.Location, loc)
			locs[i][b.ID] = loc
		}
	}
	cs := newCallers(p)
	for i, f := range p.Program.Funcs {
		for _, b := range f.Blocks {
			n := p.Counts[i].Blocks[b.ID]
			if n == 0 {
				continue
			}
			split(n, cs.trees[i], nil, func(part uint64, stack []callSite) {
				frames := make([]*pprof.Location, 0, 1+len(stack))
				frames = append(frames, locs[i][b.ID])
				for _, s := range stack {
					frames = append(frames, locs[s.fn][s.block])
				}
				out.Sample = append(out.Sample, &pprof.Sample{
					Location: frames,
					Value:    []int64{int64(part), int64(part) * int64(b.Instrs)},
					Label:    map[string][]string{"block": {b.Label}},
					NumLabel: map[string][]int64{"block_id": {int64(b.ID)}},
				})
			})
		}
	}
	if err := out.CheckValid(); err != nil {
		return nil, err
	}
	return out, nil
}

// WritePprof writes p in pprof's gzipped protocol-buffer format.
func WritePprof(w io.Writer, p *profile.Profile) error {
	pp, err := Pprof(p)
	if err != nil {
		return err
	}
	return pp.Write(w)
}
