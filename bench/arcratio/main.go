// Command arcratio measures a planted slowdown where it was planted: the time
// a run spends on one arc of the transition graph (the sum of its
// transitions' times, between consecutive checkpoints of the main thread),
// in a changed build's runs over the same arc's time in the unchanged build's
// runs at the same inputs. Runs are paired by trace file name (the same trial
// and repetition, traced with the same seed by bench/check.sh), and it prints
// the median over the pairs of the ratio, with its quartiles and the pairs'
// count, and the arc's median share of the unchanged runs' traced time.
//
//	go run ./bench/arcratio -arc 'sweep → residual' BASE_DIR SLOW_DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/trace"
)

func main() {
	arc := flag.String("arc", "", "the arc, FROM → TO (checkpoint names)")
	flag.Parse()
	from, to, ok := strings.Cut(*arc, " → ")
	if !ok || flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: arcratio -arc 'FROM → TO' BASE_DIR SLOW_DIR")
		os.Exit(2)
	}
	base, err := arcTimes(flag.Arg(0), from, to)
	if err != nil {
		log.Fatal(err)
	}
	slow, err := arcTimes(flag.Arg(1), from, to)
	if err != nil {
		log.Fatal(err)
	}
	var ratios, shares []float64
	for name, b := range base {
		s, ok := slow[name]
		if !ok || b.arc <= 0 || s.arc <= 0 {
			continue
		}
		ratios = append(ratios, float64(s.arc)/float64(b.arc))
		shares = append(shares, float64(b.arc)/float64(b.span))
	}
	if len(ratios) == 0 {
		log.Fatalf("no run pairs with the arc %s", *arc)
	}
	fmt.Printf("%.3f %.3f %.3f %d %.3f\n", quantile(ratios, 0.5), quantile(ratios, 0.25),
		quantile(ratios, 0.75), len(ratios), quantile(shares, 0.5))
}

// runArc is one run's time on the arc and its whole traced time (ns).
type runArc struct{ arc, span int64 }

// arcTimes reads the traces of dir and returns each finished run's time on
// the arc from → to, by file name.
func arcTimes(dir, from, to string) (map[string]runArc, error) {
	traces, err := trace.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]runArc{}
	for _, t := range traces {
		m := t.Main()
		if !t.Finished || m == nil {
			continue
		}
		var sum int64
		for k := 1; k < m.Len(); k++ {
			if t.Sites[m.Site[k-1]].Name == from && t.Sites[m.Site[k]].Name == to {
				sum += m.Time[k] - m.Time[k-1]
			}
		}
		out[filepath.Base(t.Name)] = runArc{arc: sum, span: m.Span()}
	}
	return out, nil
}

// quantile returns the q-quantile of xs (the order statistic at ⌊q·n⌋ of
// the sorted values, as the bench's jq medians take it).
func quantile(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(q * float64(len(s)))
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}
