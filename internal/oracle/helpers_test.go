package oracle

// This file holds the helpers that the unit tests and the integration tests (the
// files marked //go:build integration) share.

import (
	"fmt"
	"strings"

	"github.com/fragprof/fragprof/internal/report"
)

// agree compares the reports of one program built by two compilers, function by
// function (see TestCountsAgree). It returns how many functions had the same shape
// and how many a different one.
func agree(a, b *report.JSONProgram) (same, differ int, errs []string) {
	bf := map[string]*report.JSONFunc{}
	for i := range b.Functions {
		bf[b.Functions[i].Name] = &b.Functions[i]
	}
	// A static function that nothing calls may be left out by one clang (clang 19
	// emits none that only dead code refers to); one that ran must be in both.
	af := map[string]bool{}
	for _, f := range a.Functions {
		af[f.Name] = true
	}
	for _, f := range b.Functions {
		if !af[f.Name] && *f.Calls != 0 {
			errs = append(errs, fmt.Sprintf("function %s (called %d times) only in the second", f.Name, *f.Calls))
		}
	}
	for i := range a.Functions {
		fa := &a.Functions[i]
		fb := bf[fa.Name]
		if fb == nil {
			if *fa.Calls != 0 {
				errs = append(errs, fmt.Sprintf("function %s (called %d times) only in the first", fa.Name, *fa.Calls))
			}
			continue
		}
		if *fa.Calls != *fb.Calls {
			errs = append(errs, fmt.Sprintf("function %s: %d calls against %d", fa.Name, *fa.Calls, *fb.Calls))
		}
		if shape(fa) == shape(fb) {
			same++
			for k := range fa.Blocks {
				if *fa.Blocks[k].Count != *fb.Blocks[k].Count {
					errs = append(errs, fmt.Sprintf("function %s, block %d (%s): %d against %d",
						fa.Name, k, fa.Blocks[k].Label, *fa.Blocks[k].Count, *fb.Blocks[k].Count))
				}
			}
			for k := range fa.Edges {
				if *fa.Edges[k].Count != *fb.Edges[k].Count {
					errs = append(errs, fmt.Sprintf("function %s, edge %d: %d against %d",
						fa.Name, k, *fa.Edges[k].Count, *fb.Edges[k].Count))
				}
			}
			continue
		}
		differ++
		la, lb := funcLines(fa), funcLines(fb)
		for l, ca := range la {
			cb, ok := lb[l]
			if !ok {
				continue
			}
			if len(ca) == 1 && len(cb) == 1 && ca[0] != cb[0] {
				errs = append(errs, fmt.Sprintf("function %s, line %d (one block in both): %d against %d", fa.Name, l, ca[0], cb[0]))
			}
			if ran(ca) != ran(cb) {
				errs = append(errs, fmt.Sprintf("function %s, line %d: blocks %v against %v", fa.Name, l, ca, cb))
			}
		}
	}
	return same, differ, errs
}

// shape prints a function's graph without labels, lines or counts.
func shape(f *report.JSONFunc) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d;", len(f.Blocks))
	for _, e := range f.Edges {
		fmt.Fprintf(&sb, "%d>%d:%s:%s;", e.From, e.To, e.Kind, e.Case)
	}
	return sb.String()
}

func funcLines(f *report.JSONFunc) map[int][]uint64 {
	out := map[int][]uint64{}
	for _, b := range f.Blocks {
		for _, l := range b.Lines {
			out[l] = append(out[l], *b.Count)
		}
	}
	return out
}

func ran(counts []uint64) bool {
	for _, c := range counts {
		if c > 0 {
			return true
		}
	}
	return false
}
