// This file implements the record of an in-process sampled run: the sampler's
// file kept as the library wrote it, decoded into a batches file when it is read
// rather than in the run.

package sample

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/hotcfg"
)

// RecordMagic is the first line of a record file (docs/batches.md, "The record").
const RecordMagic = hotcfg.RecordMagic

func init() { hotcfg.DecodeRecord = DecodeRecord }

// An Info is one info line of a batches file: a key and its value.
type Info struct{ Key, Value string }

// Record runs the target once with the in-process sampler preloaded (as Preload)
// and writes to out a record: the info lines, then the sampler's file as the
// library left it, then the info lines of its counts (docs/batches.md, "The
// record"). The bursts are neither decoded nor unwound here: DecodeRecord
// does it when the record is read (hotcfg.ReadBatchFiles). The stats count the
// bursts, their PCs and cost, and the mappings' cost, from the file's records.
func Record(t Target, o Options, stackBytes int, info []Info, out string) (*Stats, error) {
	s, data, err := preloadRun(t, o, stackBytes)
	if err != nil {
		return nil, err
	}
	r, err := readSamples(data, false)
	if err != nil {
		return nil, err
	}
	if err := r.check(t); err != nil {
		return nil, err
	}
	r.tally(s)
	f, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, RecordMagic)
	for _, in := range info {
		fmt.Fprintf(w, "info %s %s\n", in.Key, in.Value)
	}
	fmt.Fprintf(w, "raw %d\n", len(data))
	w.Write(data)
	// The counts a batches file ends with, after the raw part: readable in the
	// record as they are in a batches file.
	fmt.Fprintf(w, "\ninfo batches %d\ninfo sampled %d\ninfo runs 1\ninfo stepping %s\n", s.Batches, s.Sampled, s.Steps)
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return s, f.Close()
}

// DecodeRecord reads a record (Record) from r and writes to w the batches file
// that sampling the run directly writes: the info lines, the bursts as batches with
// their instructions and call stacks, the mappings, and the run's counts (info
// batches, sampled, runs and stepping, as the record holds them). The one
// difference: a record holds no estimated similarity (info estimated_similarity),
// which sampling computes.
func DecodeRecord(r io.Reader, w io.Writer) error {
	br := bufio.NewReader(r)
	line := func() (string, error) {
		l, err := br.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("a record cut short (%v)", err)
		}
		return strings.TrimSuffix(l, "\n"), nil
	}
	first, err := line()
	if err != nil {
		return err
	}
	if first != RecordMagic {
		return fmt.Errorf("not a record (want the first line %q)", RecordMagic)
	}
	bw := hotcfg.NewWriter(w)
	keys := map[string]bool{}
	var size int
	for {
		l, err := line()
		if err != nil {
			return err
		}
		if k, v, ok := strings.Cut(l, " "); ok && k == "raw" {
			if size, err = strconv.Atoi(v); err != nil || size < 0 {
				return fmt.Errorf("a record with a bad raw size %q", v)
			}
			break
		}
		if err := infoLine(bw, l); err != nil {
			return err
		}
		keys[strings.Fields(l)[1]] = true
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(br, data); err != nil {
		return fmt.Errorf("a record cut short: %d bytes of the sampler's file announced (%v)", size, err)
	}
	s, err := readSamples(data, true)
	if err != nil {
		return err
	}
	st := &Stats{}
	seq := 0
	s.decode(st, func(b Burst, c hotcfg.Code) {
		seq++
		b.Batch.Seq = seq
		bw.Batch(b.Batch, c)
	})
	for _, m := range st.Maps {
		bw.Map(m)
	}
	// The counts, written after the raw part.
	rest, err := io.ReadAll(br)
	if err != nil {
		return err
	}
	if err := copyInfo(bw, rest); err != nil {
		return err
	}
	selfCounts(bw, st, keys, rest)
	return bw.Flush()
}

// selfCounts completes the info lines of a record that the sampler library wrote
// by itself (`fragprof sample --env`, docs/sampling.md): it ends with info runs
// alone, so the bursts' count, their PCs and the stepping are read from its file
// here; and its own cost figures (info process_cpu_ns) are joined by the bursts'
// and the mappings' CPU time (info bursts_cpu_ns, maps_cpu_ns), which the file
// holds.
func selfCounts(w *hotcfg.Writer, st *Stats, keys map[string]bool, trailer []byte) {
	if !strings.Contains("\n"+string(trailer), "\ninfo batches ") {
		w.Info("batches", fmt.Sprint(st.Batches))
		w.Info("sampled", fmt.Sprint(st.Sampled))
		w.Info("stepping", st.Steps.String())
	}
	if keys["process_cpu_ns"] {
		w.Info("bursts_cpu_ns", fmt.Sprint(st.SelfCost.Nanoseconds()))
		w.Info("maps_cpu_ns", fmt.Sprint(st.SetupCost.Nanoseconds()))
	}
}

// copyInfo writes the info lines of text (after an empty first line) to w; any
// other line is an error.
func copyInfo(w *hotcfg.Writer, text []byte) error {
	for _, l := range strings.Split(strings.TrimPrefix(string(text), "\n"), "\n") {
		if l == "" {
			continue
		}
		if err := infoLine(w, l); err != nil {
			return err
		}
	}
	return nil
}

// infoLine writes the info line l of a record to w; another line is an error.
func infoLine(w *hotcfg.Writer, l string) error {
	f := strings.SplitN(l, " ", 3)
	if len(f) < 2 || f[0] != "info" {
		return fmt.Errorf("a record with a malformed line %q", l)
	}
	w.Info(f[1], strings.Join(f[2:], " "))
	return nil
}
