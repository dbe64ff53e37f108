// This file reads what the samplers write — batches files and exact graphs — and
// builds a hot CFG from them with either algorithm.

package hotcfg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/fragprof/fragprof/internal/jsonerr"
)

// Samples are the batches of one or more batches files, with the instructions
// and mappings they were written with.
type Samples struct {
	Batches []Batch
	Code    InsnTable
	Maps    Maps
	Runs    int // program runs the batches came from (info runs, default 1 per file)
	// Self sums the cost figures of the records the sampler library wrote by
	// itself (info process_cpu_ns: 'fragprof sample --env'); nil when none is.
	Self *SelfCost
}

// A SelfCost is what the in-process sampler reports of its own cost in the records
// it writes by itself, with no fragprof process in the program's tree, summed over
// records: everything fragprof added to those processes is the library's.
type SelfCost struct {
	Records int           // records summed
	Batches int           // their bursts
	Bursts  time.Duration // the bursts' CPU time (info bursts_cpu_ns)
	Maps    time.Duration // recording the mappings (info maps_cpu_ns)
	Start   time.Duration // the library's constructor (info library_start_ns)
	Process time.Duration // each process's own CPU time at its exit (info process_cpu_ns)
}

// add adds the cost figures of one record's info lines to c.
func (c *SelfCost) add(info map[string]string) {
	ns := func(k string) time.Duration {
		var v int64
		fmt.Sscan(info[k], &v)
		return time.Duration(v)
	}
	var batches int
	fmt.Sscan(info["batches"], &batches)
	c.Records++
	c.Batches += batches
	c.Bursts += ns("bursts_cpu_ns")
	c.Maps += ns("maps_cpu_ns")
	c.Start += ns("library_start_ns")
	c.Process += ns("process_cpu_ns")
}

// String is the cost line: the library's CPU time (bursts, mappings, start) as a
// share of the program's own, which is the processes' CPU time less the library's.
// The library's loading by the dynamic loader and its writing of the record at
// exit are in neither (docs/sampling.md measures them).
func (c SelfCost) String() string {
	in := c.Bursts + c.Maps + c.Start
	program := max(c.Process-in, 1)
	return fmt.Sprintf("cost (estimate): in the program %v (bursts %v, %d of %.0f µs CPU each; the mappings %v; its start %v, measured by the library in %d process(es)); no fragprof process in the tree: %.2f%% over the program's own CPU time (%v)",
		in.Round(time.Microsecond), c.Bursts.Round(time.Microsecond), c.Batches,
		float64(c.Bursts.Microseconds())/float64(max(c.Batches, 1)), c.Maps.Round(time.Microsecond),
		c.Start.Round(time.Microsecond), c.Records, 100*float64(in)/float64(program), program.Round(time.Microsecond))
}

// ReadBatchFiles reads the batches files names, in order. A malformed line is an
// error naming its file and line.
func ReadBatchFiles(names []string) (*Samples, error) {
	d := &Samples{Code: InsnTable{}}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			f.Close()
			return nil, fmt.Errorf("%s is empty: not a batches file (want the first line %q, as 'fragprof sample' writes)", name, Magic)
		}
		r, err := openBatches(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for r.Next() {
			b := r.Batch()
			b.PCs = append([]uint64(nil), b.PCs...)
			d.Batches = append(d.Batches, b)
		}
		f.Close()
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if bad := r.Bad(); len(bad) > 0 {
			more := ""
			if len(bad) > 1 {
				more = fmt.Sprintf(" (and %d more malformed lines)", len(bad)-1)
			}
			return nil, fmt.Errorf("%s:%v%s", name, bad[0], more)
		}
		for a, in := range r.Code() {
			d.Code[a] = in
		}
		for _, m := range r.Maps() {
			d.Maps.Add(m)
		}
		runs := 1
		fmt.Sscan(r.Info()["runs"], &runs)
		if _, ok := r.Info()["process_cpu_ns"]; ok {
			if d.Self == nil {
				d.Self = &SelfCost{}
			}
			d.Self.add(r.Info())
		}
		d.Runs += runs
	}
	return d, nil
}

// RecordMagic is the first line of a record: a sampled run kept as the sampler
// wrote it (package internal/sample, docs/batches.md).
const RecordMagic = "fragprof-record 1"

// DecodeRecord, when set, turns a record into the batches file it stands for.
// The package that writes records sets it (internal/sample); without it a record
// is an error that says what it is.
var DecodeRecord func(r io.Reader, w io.Writer) error

// openBatches returns a Reader of f: of the file itself, or of the batches file
// that f's record decodes to.
func openBatches(f *os.File) (*Reader, error) {
	br := bufio.NewReader(f)
	head, _ := br.Peek(len(RecordMagic) + 1)
	if string(head) != RecordMagic+"\n" {
		return NewReader(br), nil
	}
	if DecodeRecord == nil {
		return nil, fmt.Errorf("a record of an in-process sampled run (%q), which this program cannot decode: read it with 'fragprof hotcfg' or 'fragprof export'", RecordMagic)
	}
	var b bytes.Buffer
	if err := DecodeRecord(br, &b); err != nil {
		return nil, err
	}
	return NewReader(&b), nil
}

// Head keeps the first n batches (n > 0 and fewer than there are); the runs are
// then counted as the share of them the kept batches span.
func (d *Samples) Head(n int) {
	if n > 0 && n < len(d.Batches) {
		d.Runs = max(1, int(float64(d.Runs)*float64(n)/float64(len(d.Batches))+0.5))
		d.Batches = d.Batches[:n]
	}
}

// ReadExact reads the exact graph that 'fragprof sample --exact' writes: the
// "graph" member of its JSON document (docs/json.md), which any graph 'fragprof
// hotcfg --format json' writes also holds; what is not one is an error saying what
// it is and what is wanted.
func ReadExact(name string) (*Graph, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	const want = "--compare wants the exact graph 'fragprof sample --exact' writes"
	if bytes.HasPrefix(data, []byte(Magic)) {
		return nil, fmt.Errorf("--compare %s is a batches file, to be given as an argument: %s", name, want)
	}
	var doc struct {
		Graph *Graph `json:"graph"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("--compare %s: not an exact graph (%v): %s", name, jsonerr.Explain(data, err), want)
	}
	if doc.Graph == nil {
		return nil, fmt.Errorf("--compare %s: not an exact graph (a JSON document without \"graph\", the graph by address, which an exact graph of an older fragprof lacks: run 'sample --exact' again): %s", name, want)
	}
	return doc.Graph, nil
}

// A Builder makes the hot CFG of a set of samples.
type Builder struct {
	Samples *Samples
	Code    Code // the instructions: the samples' own, then the program files'
	// Keep and Infer are the bursts algorithm's options (Bursts.Keep, Bursts.Infer).
	Keep  float64
	Infer bool
	// Exact, when set, is the exact run's graph: the graph built then counts the
	// instructions of Samples.Runs runs of it.
	Exact *Graph
}

// ReadExact reads b.Exact from the exact graph's file name (ReadExact); nothing
// when name is empty.
func (b *Builder) ReadExact(name string) (err error) {
	if name != "" {
		b.Exact, err = ReadExact(name)
	}
	return err
}

// Graph builds the hot CFG with algorithm algo: "gfc" (the bins-and-windows
// algorithm, with parameters p) or "bursts" (each burst's consecutive PCs as edges).
func (b *Builder) Graph(algo string, p Params) *Graph {
	var g *Graph
	if algo == "gfc" {
		gfc := NewGFC(p, b.Samples.Code)
		for _, bt := range b.Samples.Batches {
			gfc.AddBatch(bt)
		}
		g = gfc.Graph()
	} else {
		bu := NewBursts(b.Code)
		bu.Keep = b.Keep
		bu.Infer = b.Infer
		for _, bt := range b.Samples.Batches {
			bu.AddBatch(bt)
		}
		g = bu.Graph()
	}
	g.Maps = b.Samples.Maps
	if b.Exact != nil {
		// Each run executes the exact run's instructions.
		g.Instructions = uint64(b.Samples.Runs) * b.Exact.Instructions
	}
	return g
}

// WriteSweep compares with the exact graph the hot CFG that the gfc algorithm
// builds with every parameter set of Grid, and prints the three best and three
// worst, the default's, and the bursts algorithm's, as the thesis's Tables 3 and 4
// do for one program.
func (b *Builder) WriteSweep(w io.Writer, hot float64) error {
	type row struct {
		n int
		p Params
		c Comparison
	}
	var rows []row
	for i, p := range Grid() {
		rows = append(rows, row{i, p, Compare(b.Graph("gfc", p), b.Exact, hot)})
	}
	sorted := append([]row(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].c.Similarity > sorted[j].c.Similarity })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tconfig\tbinSize\tstdevThres.\twindowSize\trecurrentThres.\tsimilarity\tprecision\tweighted\tedges\t")
	pr := func(label string, r row) {
		fmt.Fprintf(tw, "%s\t#%d\t%g\t%g\t%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%d\t\n", label, r.n, r.p.BinSize, r.p.StdevThreshold,
			r.p.WindowSize, r.p.Recurrent, 100*r.c.Similarity, 100*r.c.Precision, 100*r.c.Weighted, r.c.Edges)
	}
	for _, r := range sorted[:3] {
		pr("best", r)
	}
	for _, r := range sorted[len(sorted)-3:] {
		pr("worst", r)
	}
	pr("default", rows[45])
	bu := Compare(b.Graph("bursts", Params{}), b.Exact, hot)
	fmt.Fprintf(tw, "bursts\t-\t-\t-\t-\t-\t%.1f%%\t%.1f%%\t%.1f%%\t%d\t\n", 100*bu.Similarity, 100*bu.Precision, 100*bu.Weighted, bu.Edges)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d batches, %d hot edges (%.0f%% of transitions), sampled %.4f%% of instructions\n",
		len(b.Samples.Batches), bu.HotEdges, 100*hot, 100*bu.SampledFraction)
	return err
}
