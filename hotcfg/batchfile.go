// This file implements the batches file: a streamable text format of sampled bursts
// (specified in docs/batches.md).

package hotcfg

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Magic is the first line of a batches file.
const Magic = "fragprof-batches 1"

// A Writer writes a batches file. Each instruction is described once, on an "i" line
// before the first batch that holds it.
type Writer struct {
	w     *bufio.Writer
	known map[uint64]bool
	err   error
}

// NewWriter writes the header to w and returns a Writer.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 1<<16)
	_, err := bw.WriteString(Magic + "\n")
	return &Writer{w: bw, known: map[uint64]bool{}, err: err}
}

func (w *Writer) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// Info writes a key/value line ("info key value"); value must not hold a newline.
func (w *Writer) Info(key, value string) {
	w.printf("info %s %s\n", key, strings.ReplaceAll(value, "\n", " "))
}

// Map writes an executable mapping.
func (w *Writer) Map(m Mapping) { w.printf("map %x %x %x %s\n", m.Start, m.End, m.Offset, m.Path) }

// Insn writes an instruction description unless it was written before.
func (w *Writer) Insn(in Insn) {
	if w.known[in.Addr] {
		return
	}
	w.known[in.Addr] = true
	if in.Kind.HasTarget() {
		w.printf("i %x %d %s %x\n", in.Addr, in.Len, in.Kind, in.Target)
	} else {
		w.printf("i %x %d %s\n", in.Addr, in.Len, in.Kind)
	}
}

// Batch writes a batch, preceded by the descriptions (from code) of its new
// instructions.
func (w *Writer) Batch(b Batch, code Code) {
	for _, pc := range b.PCs {
		if !w.known[pc] {
			if in, ok := code.Insn(pc); ok {
				w.Insn(in)
			}
		}
	}
	if w.err != nil {
		return
	}
	var sb strings.Builder
	if len(b.Stack) > 0 {
		sb.WriteString("s")
		for _, a := range b.Stack {
			sb.WriteByte(' ')
			sb.WriteString(strconv.FormatUint(a, 16))
		}
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "b %d %d %d %d", b.Seq, b.Time.Microseconds(), b.PID, b.TID)
	for _, pc := range b.PCs {
		sb.WriteByte(' ')
		sb.WriteString(strconv.FormatUint(pc, 16))
	}
	sb.WriteByte('\n')
	_, w.err = w.w.WriteString(sb.String())
}

// Flush writes buffered data and returns the first error met.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

// A ParseError is a malformed line of a batches file.
type ParseError struct {
	Line int
	Text string
	Msg  string
}

// Error is "L: what is wrong: text", to follow a file name and a colon.
func (e *ParseError) Error() string { return fmt.Sprintf("%d: %s: %q", e.Line, e.Msg, e.Text) }

// A Reader reads a batches file line by line, like bufio.Scanner: Next advances to
// the next batch; instructions, mappings and info lines met on the way accumulate in
// Code, Maps and Info. Malformed lines do not stop the read: they are collected in
// Bad, and so is a last line cut short (without its newline: every line the Writer
// writes ends with one), which is left out. Only I/O errors end it early (Err).
type Reader struct {
	s     *bufio.Scanner
	line  int
	batch Batch
	code  InsnTable
	maps  Maps
	info  map[string]string
	bad   []*ParseError
	err   error
	stack []uint64 // an "s" line waiting for its batch
	cut   bool     // the line scanned last has no newline: the file was cut there
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<16), 1<<24)
	rd := &Reader{s: s, code: InsnTable{}, info: map[string]string{}}
	s.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		rd.cut = tok != nil && atEOF && adv == len(data) && !bytes.HasSuffix(data, []byte("\n"))
		return adv, tok, err
	})
	return rd
}

// Code returns the instructions described so far.
func (r *Reader) Code() InsnTable { return r.code }

// Maps returns the mappings read so far.
func (r *Reader) Maps() Maps { return r.maps }

// Info returns the info lines read so far.
func (r *Reader) Info() map[string]string { return r.info }

// Bad returns the malformed lines met so far.
func (r *Reader) Bad() []*ParseError { return r.bad }

// Batch returns the batch Next found. Its PCs are valid until the next call of Next.
func (r *Reader) Batch() Batch { return r.batch }

// Err returns the I/O error that stopped the read, if any.
func (r *Reader) Err() error { return r.err }

func (r *Reader) badf(text, format string, args ...any) {
	r.bad = append(r.bad, &ParseError{Line: r.line, Text: text, Msg: fmt.Sprintf(format, args...)})
}

// Next reads up to the next batch and reports whether there is one.
func (r *Reader) Next() bool {
	for r.s.Scan() {
		r.line++
		text := r.s.Text()
		if r.cut {
			r.badf(text, "the last line is cut short (no newline at its end): the file is truncated; sample again, or delete that line to use the rest")
			continue
		}
		if r.line == 1 {
			if text != Magic {
				r.badf(text, "not a batches file (want %q)", Magic)
			}
			continue
		}
		f := strings.Fields(text)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "info":
			if len(f) < 2 {
				r.badf(text, "info without a key")
				continue
			}
			r.info[f[1]] = strings.Join(f[2:], " ")
		case "map":
			if len(f) < 5 {
				r.badf(text, "map wants start end offset path")
				continue
			}
			s, e1 := strconv.ParseUint(f[1], 16, 64)
			e, e2 := strconv.ParseUint(f[2], 16, 64)
			o, e3 := strconv.ParseUint(f[3], 16, 64)
			if e1 != nil || e2 != nil || e3 != nil {
				r.badf(text, "bad number")
				continue
			}
			r.maps.Add(Mapping{s, e, o, strings.Join(f[4:], " ")})
		case "i":
			if len(f) < 4 {
				r.badf(text, "i wants addr len kind [target]")
				continue
			}
			a, e1 := strconv.ParseUint(f[1], 16, 64)
			l, e2 := strconv.ParseUint(f[2], 10, 8)
			k, e3 := ParseKind(f[3])
			if e1 != nil || e2 != nil || e3 != nil {
				r.badf(text, "bad instruction")
				continue
			}
			in := Insn{Addr: a, Len: uint8(l), Kind: k}
			if len(f) > 4 {
				t, err := strconv.ParseUint(f[4], 16, 64)
				if err != nil {
					r.badf(text, "bad target")
					continue
				}
				in.Target = t
			}
			r.code[a] = in
		case "s":
			st := make([]uint64, 0, len(f)-1)
			ok := true
			for _, x := range f[1:] {
				a, err := strconv.ParseUint(x, 16, 64)
				ok = ok && err == nil
				st = append(st, a)
			}
			if !ok {
				r.badf(text, "bad address in stack")
				continue
			}
			r.stack = st
		case "b":
			if len(f) < 5 {
				r.badf(text, "b wants seq time pid tid pcs...")
				continue
			}
			var nums [4]int64
			ok := true
			for i := range nums {
				n, err := strconv.ParseInt(f[1+i], 10, 64)
				ok = ok && err == nil
				nums[i] = n
			}
			pcs := r.batch.PCs[:0]
			for _, s := range f[5:] {
				pc, err := strconv.ParseUint(s, 16, 64)
				ok = ok && err == nil
				pcs = append(pcs, pc)
			}
			if !ok {
				r.badf(text, "bad number in batch")
				continue
			}
			r.batch = Batch{Seq: int(nums[0]), Time: time.Duration(nums[1]) * time.Microsecond, PID: int(nums[2]), TID: int(nums[3]), PCs: pcs, Stack: r.stack}
			r.stack = nil
			return true
		default:
			// Unknown lines are ignored, so that later versions can add records.
		}
	}
	r.err = r.s.Err()
	return false
}
