// This file converts sampled bursts to pprof's format, with call stacks.

package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	pprof "github.com/google/pprof/profile"

	"github.com/fragprof/fragprof/hotcfg"
)

// SampledPprof converts the batches of a sampled run to a pprof profile: one sample
// per distinct call stack, valued by the number of sampled PCs (executed
// instructions) with that stack. It is not Pprof of the run's profile
// (hotcfg.Graph.Profile), whose stacks would be apportioned from call counts: these
// are the stacks the sampler measured. A
// PC's stack is its batch's Stack (taken at the burst's start), followed along the
// burst: a call observed in the burst pushes its return address, a return pops
// one. Each location is an address, symbolized by sym (return addresses at the call
// before them), in the mapping of maps that holds it. Batches without a stack give
// one-frame samples, so `pprof -top -cum` shows cum ≠ flat only where stacks were
// taken.
func SampledPprof(batches []hotcfg.Batch, code hotcfg.Code, sym hotcfg.Symbolizer, maps hotcfg.Maps) (*pprof.Profile, error) {
	out := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "instructions", Unit: "count"}},
		PeriodType: &pprof.ValueType{Type: "instructions", Unit: "count"},
		Period:     1,
		Comments:   []string{"fragprof sampled bursts: each PC of a burst is one executed instruction"},
	}
	mappings := map[string]*pprof.Mapping{}
	for _, m := range maps {
		pm := mappings[m.Path]
		if pm == nil {
			pm = &pprof.Mapping{ID: uint64(len(out.Mapping) + 1), Start: m.Start, Limit: m.End, Offset: m.Offset, File: m.Path,
				HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
			mappings[m.Path] = pm
			out.Mapping = append(out.Mapping, pm)
		}
	}
	funcs := map[string]*pprof.Function{}
	locs := map[uint64]*pprof.Location{}
	location := func(addr uint64, caller bool) *pprof.Location {
		if l, ok := locs[addr]; ok {
			return l
		}
		at := addr
		if caller {
			at-- // the call instruction, not the return address
		}
		var s hotcfg.Symbol
		if sym != nil {
			s = sym.Symbolize(at)
		}
		name := s.Func
		if name == "" {
			mod := maps.Loc(at).Module
			if mod == "" {
				mod = "unknown"
			}
			name = "[" + mod + "]"
		}
		fkey := name + "\x00" + s.Module
		fn := funcs[fkey]
		if fn == nil {
			fn = &pprof.Function{ID: uint64(len(out.Function) + 1), Name: name, SystemName: name, Filename: s.DefFile, StartLine: int64(s.DefLine)}
			funcs[fkey] = fn
			out.Function = append(out.Function, fn)
		}
		l := &pprof.Location{ID: uint64(len(out.Location) + 1), Address: addr, Line: []pprof.Line{{Function: fn, Line: int64(s.Line)}}}
		if m, ok := maps.Find(addr); ok {
			l.Mapping = mappings[m.Path]
		}
		locs[addr] = l
		out.Location = append(out.Location, l)
		return l
	}
	samples := map[string]*pprof.Sample{}
	var key strings.Builder
	for _, b := range batches {
		stack := append([]uint64(nil), b.Stack...)
		for i, pc := range b.PCs {
			key.Reset()
			key.WriteString(strconv.FormatUint(pc, 16))
			for _, a := range stack {
				key.WriteByte(' ')
				key.WriteString(strconv.FormatUint(a, 16))
			}
			s := samples[key.String()]
			if s == nil {
				s = &pprof.Sample{Value: []int64{0}, Location: []*pprof.Location{location(pc, false)}}
				for _, a := range stack {
					s.Location = append(s.Location, location(a, true))
				}
				samples[key.String()] = s
				out.Sample = append(out.Sample, s)
			}
			s.Value[0]++
			if i+1 == len(b.PCs) || code == nil {
				continue
			}
			in, ok := code.Insn(pc)
			if !ok {
				continue
			}
			switch {
			case (in.Kind == hotcfg.Call || in.Kind == hotcfg.IndirectCall) && b.PCs[i+1] != in.Next():
				stack = append([]uint64{in.Next()}, stack...)
			case in.Kind == hotcfg.Return && len(stack) > 0:
				stack = stack[1:]
			}
		}
	}
	if err := out.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: %v", err)
	}
	return out, nil
}

// WriteSampledPprof writes the pprof profile of batches (SampledPprof), gzipped.
func WriteSampledPprof(w io.Writer, batches []hotcfg.Batch, code hotcfg.Code, sym hotcfg.Symbolizer, maps hotcfg.Maps) error {
	p, err := SampledPprof(batches, code, sym, maps)
	if err != nil {
		return err
	}
	return p.Write(w)
}
