// This file prints traces for people (fragprof trace show): the header, a summary
// per checkpoint and per transition, and the events; or every event as CSV.

package trace

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fragprof/fragprof/internal/textout"
)

// ShowOptions control WriteText.
type ShowOptions struct {
	// Events is how many events of each thread to list (0: none, negative: all).
	Events int
}

// WriteText prints t: where it came from, the clock, each transition between
// checkpoints with its count and time (total, mean, min, max), and the first
// opt.Events events of each thread with their time, the time since the previous
// event and the recorded values.
func WriteText(w io.Writer, t *Trace, opt ShowOptions) error {
	bw := &textout.Writer{W: w}
	h := t.Header
	if h.Program != "" {
		fmt.Fprintf(bw, "trace of %s, trial %d", h.Program, h.Trial)
		if h.Rep > 0 {
			fmt.Fprintf(bw, " (repetition %d)", h.Rep)
		}
		fmt.Fprintf(bw, ", seed %d: %s\n", h.Seed, h.Status)
		var ins []string
		for _, in := range h.Inputs {
			v := in.Text
			if v == "" {
				v = strconv.FormatFloat(in.Value, 'g', -1, 64)
			}
			ins = append(ins, in.Name+" = "+v)
		}
		if len(ins) > 0 {
			fmt.Fprintf(bw, "inputs: %s\n", strings.Join(ins, ", "))
		}
		if len(h.Vary) > 0 {
			fmt.Fprintf(bw, "drawn anew in each repetition: %s\n", strings.Join(h.Vary, ", "))
		}
	}
	var events int
	for i := range t.Threads {
		events += t.Threads[i].Len()
	}
	if t.Clock == 0 {
		fmt.Fprintf(bw, "no checkpoint was recorded")
	} else {
		fmt.Fprintf(bw, "clock %s (%.6g ns per tick); a checkpoint costs about %.3g ns; %d events in %d thread(s)",
			t.Clock, t.NsPerTick, t.OverheadNs, events, len(t.Threads))
	}
	if m := t.Main(); m != nil && m.Len() > 0 {
		fmt.Fprintf(bw, "; first to last checkpoint %s", textout.Ns(float64(m.Span())))
	}
	fmt.Fprintln(bw)
	if ws, ok := t.WorkingSet(); ok {
		fmt.Fprintf(bw, "working set %s: peak resident set %s, less %s of files and libraries, %s before main and %s of the runtime's event buffers\n",
			textout.Bytes(ws), textout.Bytes(float64(t.PeakRSS)), textout.Bytes(float64(t.FileRSS)), textout.Bytes(float64(t.BaseAnon)), textout.Bytes(float64(t.RuntimeBytes)))
	}
	if t.ClockFallback {
		fmt.Fprintln(bw, "note: the TSC was asked for, but its calibration was unstable: the monotonic clock was used")
	}
	switch {
	case !t.Finished:
		fmt.Fprintln(bw, "warning: the trace is incomplete (no END record): the process did not finish it")
	case t.Truncated || t.Lost > 0:
		fmt.Fprintf(bw, "warning: truncated: %d events were not recorded (--max-events)\n", t.Lost)
	case t.Stopped:
		fmt.Fprintln(bw, "note: a probe: the run was stopped once its budget (--stop-after, --stop-events) was spent; this is its beginning only")
	}
	for ti := range t.Threads {
		th := &t.Threads[ti]
		type arc struct{ from, to int32 }
		type stat struct {
			n             int
			sum, min, max int64
		}
		stats := map[arc]*stat{}
		var order []arc
		for k := 1; k < th.Len(); k++ {
			a := arc{th.Site[k-1], th.Site[k]}
			d := th.Time[k] - th.Time[k-1]
			s := stats[a]
			if s == nil {
				s = &stat{min: d, max: d}
				stats[a] = s
				order = append(order, a)
			}
			s.n++
			s.sum += d
			s.min, s.max = min(s.min, d), max(s.max, d)
		}
		sort.SliceStable(order, func(i, j int) bool { return stats[order[i]].sum > stats[order[j]].sum })
		fmt.Fprintf(bw, "\nthread %d: %d events; transitions by total time\n", th.Index, th.Len())
		tw := tabwriter.NewWriter(bw, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "count\ttotal\tmean\tmin\tmax\t  transition\n")
		for _, a := range order {
			s := stats[a]
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t  %s → %s\n", s.n, textout.Ns(float64(s.sum)), textout.Ns(float64(s.sum)/float64(s.n)),
				textout.Ns(float64(s.min)), textout.Ns(float64(s.max)), t.siteName(a.from), t.siteName(a.to))
		}
		tw.Flush()
		n := th.Len()
		if opt.Events >= 0 && opt.Events < n {
			n = opt.Events
		}
		if n == 0 {
			continue
		}
		fmt.Fprintf(bw, "\nevents (%d of %d): time since the first, since the previous, checkpoint, values\n", n, th.Len())
		tw = tabwriter.NewWriter(bw, 2, 8, 2, ' ', 0)
		for k := 0; k < n; k++ {
			var dt int64
			if k > 0 {
				dt = th.Time[k] - th.Time[k-1]
			}
			s := &t.Sites[th.Site[k]]
			var vals []string
			for i, v := range th.Values(k) {
				name := "?"
				if i < len(s.Vars) {
					name = s.Vars[i].Name
				}
				vals = append(vals, name+"="+strconv.FormatFloat(v, 'g', -1, 64))
			}
			fmt.Fprintf(tw, "  %d\t%s\t+%s\t%s\t%s\n", k, textout.Ns(float64(th.Time[k]-th.Time[0])), textout.Ns(float64(dt)), s.Name, strings.Join(vals, " "))
		}
		tw.Flush()
	}
	return bw.Err
}

// WriteCSV writes every event of t, one row each: thread, event (its index in
// the thread), time_ns (since the trace's origin), dt_ns (since the thread's
// previous event), checkpoint, place (file:line), then one column per variable
// name recorded anywhere in t (empty where the event does not record it).
func WriteCSV(w io.Writer, t *Trace) error {
	var names []string
	col := map[string]int{}
	for _, s := range t.Sites {
		for _, v := range s.Vars {
			if _, ok := col[v.Name]; !ok {
				col[v.Name] = len(names)
				names = append(names, v.Name)
			}
		}
	}
	cw := csv.NewWriter(w)
	head := append([]string{"thread", "event", "time_ns", "dt_ns", "checkpoint", "place"}, names...)
	if err := cw.Write(head); err != nil {
		return err
	}
	row := make([]string, len(head))
	for ti := range t.Threads {
		th := &t.Threads[ti]
		for k := 0; k < th.Len(); k++ {
			for i := range row {
				row[i] = ""
			}
			s := &t.Sites[th.Site[k]]
			var dt int64
			if k > 0 {
				dt = th.Time[k] - th.Time[k-1]
			}
			row[0] = strconv.Itoa(th.Index)
			row[1] = strconv.Itoa(k)
			row[2] = strconv.FormatInt(th.Time[k], 10)
			row[3] = strconv.FormatInt(dt, 10)
			row[4] = s.Name
			if s.File != "" {
				row[5] = s.File + ":" + strconv.Itoa(s.Line)
			}
			for i, v := range th.Values(k) {
				if i < len(s.Vars) {
					row[6+col[s.Vars[i].Name]] = strconv.FormatFloat(v, 'g', -1, 64)
				}
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func (t *Trace) siteName(i int32) string {
	if i >= 0 && int(i) < len(t.Sites) {
		return t.Sites[i].Name
	}
	return fmt.Sprintf("site#%d", i)
}
