// Command timingcmp compares whole-program times taken by `fragprof time --fragment
// program --json` and by hyperfine (`--export-json`) on the same command, in chunks
// that alternate between the two tools (bench/timing.sh), so that both see the same
// load on a shared machine. It pools each tool's samples (fragprof's kept and cut
// samples, hyperfine's times), runs fragprof's protocol (internal/stats
// SummarizeTimes: tail cut, normality, interval of the mean or the range rule,
// median interval) on both, and prints one Markdown row: both intervals, both
// medians and minima, hyperfine's own mean ± σ, and whether the two agree within
// both intervals.
//
//	go run ./bench/timingcmp -label 'lab D 7' -fragprof a.json,b.json -hyperfine c.json,d.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"strings"

	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/stats"
)

type hyperfine struct {
	Results []struct {
		Mean   float64   `json:"mean"`
		Stddev float64   `json:"stddev"`
		Times  []float64 `json:"times"`
	} `json:"results"`
}

func main() {
	label := flag.String("label", "", "the command, for the table")
	fp := flag.String("fragprof", "", "comma-separated fragprof time --json files")
	hf := flag.String("hyperfine", "", "comma-separated hyperfine --export-json files")
	flag.Parse()
	var a, b []float64
	for _, f := range strings.Split(*fp, ",") {
		var r report.JSONTime
		read(f, &r)
		for _, fr := range r.Fragments {
			if fr.Name == "program" {
				a = append(append(a, fr.SamplesNs...), fr.CutNs...)
			}
		}
	}
	for _, f := range strings.Split(*hf, ",") {
		var r hyperfine
		read(f, &r)
		for _, x := range r.Results[0].Times {
			b = append(b, x*1e9)
		}
	}
	o := stats.DefaultTimingOptions
	o.Warmup = 0 // each chunk dropped its own warm-up
	sa, sb := stats.SummarizeTimes(a, o), stats.SummarizeTimes(b, o)
	hm := stats.MomentsOf(b)
	agree := "no"
	if sa.Interval.Lo <= sb.Interval.Hi && sb.Interval.Lo <= sa.Interval.Hi {
		agree = "yes"
	}
	ms := func(x float64) string { return fmt.Sprintf("%.3f", x/1e6) }
	iv := func(s stats.TimingSummary) string {
		rule := "range rule"
		if s.Normal {
			rule = "u·s/√N"
		}
		return fmt.Sprintf("%s ± %s (%s; %d of %d cut)", ms(s.Mean), ms(s.Interval.HalfWidth()), rule, len(s.Tail.Cut), s.N+len(s.Tail.Cut))
	}
	med := func(s stats.TimingSummary) string {
		return fmt.Sprintf("%s [%s, %s]", ms(s.Median.Center), ms(s.Median.Lo), ms(s.Median.Hi))
	}
	medAgree := "no"
	if sa.Median.Lo <= sb.Median.Hi && sb.Median.Lo <= sa.Median.Hi {
		medAgree = "yes"
	}
	fmt.Printf("| `%s` | %s | %s | %s | %s | %s | %s | %s ± %s | %s | %s (%+.1f%%) |\n", *label, iv(sa), med(sa), ms(sa.Min),
		iv(sb), med(sb), ms(sb.Min), ms(hm.Mean), ms(hm.StdDev()), agree, medAgree, 100*(sa.Median.Center-sb.Median.Center)/sb.Median.Center)
	if math.IsNaN(sa.Mean) || math.IsNaN(sb.Mean) {
		log.Fatal("timingcmp: no samples")
	}
}

func read(path string, v any) {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
}
