package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// synthKind is a kind of file: a name (the file's extension) and how to make
// one of a size from a random stream.
type synthKind struct {
	name string
	make func(r *rand.Rand, size int) []byte
}

// synthPlain are the kinds of file synthCorpus makes, each a function of a
// random stream and a size. Their mix is what a compressor meets: prose, code,
// binary records, long repeats and runs (bzip2's run-length stages), bytes
// that do not compress.
var synthPlain = []synthKind{
	{"txt", synthText},
	{"c", synthSource},
	{"bin", synthRecords},
	{"rep", synthRepeat},
	{"run", synthRuns},
	{"rnd", synthRandom},
}

// synthKinds are synthPlain and the files that change kind part-way.
var synthKinds = append(synthPlain[:len(synthPlain):len(synthPlain)], synthKind{"mix", synthMixed})

// synthCorpus writes n files generated from a seed: file i from the stream
// (seed, i), so that a file does not depend on n. The kind is uniform over
// synthKinds, the size log-uniform on [1, max] bytes minus one (so from 0).
func synthCorpus(args []string) error {
	fset := flag.NewFlagSet("synth", flag.ExitOnError)
	n := fset.Int("n", 10000, "files")
	seed := fset.Uint64("seed", 1, "seed")
	maxSize := fset.Int("max-size", 1<<16, "largest file, bytes")
	out := fset.String("o", "", "output directory")
	fset.Parse(args)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for i := range *n {
		r := rand.New(rand.NewPCG(*seed, uint64(i)))
		k := synthKinds[r.IntN(len(synthKinds))]
		size := int(math.Exp(r.Float64()*math.Log(float64(*maxSize)+1))) - 1
		data := k.make(r, size)
		if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("%05d.%s", i, k.name)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// zipf draws from {0, …, n−1} with probability ∝ 1/(k+1), by inversion of
// the harmonic approximation: a word's rank in prose.
func zipf(r *rand.Rand, n int) int {
	k := int(math.Exp(r.Float64()*math.Log(float64(n)+1))) - 1
	return min(k, n-1)
}

var synthWords = []string{"the", "of", "and", "to", "in", "a", "is", "that", "for", "it",
	"as", "was", "with", "be", "by", "on", "not", "he", "this", "are", "or", "his",
	"from", "at", "which", "but", "have", "an", "had", "they", "you", "were", "their",
	"one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when",
	"will", "would", "who", "so", "no", "compression", "block", "sorting", "huffman",
	"transform", "burrows", "wheeler", "entropy", "symbol", "stream", "archive"}

func synthText(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	col := 0
	for b.Len() < size {
		w := synthWords[zipf(r, len(synthWords))]
		if col == 0 && r.IntN(3) == 0 {
			w = string(w[0]-'a'+'A') + w[1:]
		}
		b.WriteString(w)
		col += len(w) + 1
		switch {
		case col > 60+r.IntN(20):
			b.WriteString(".\n")
			col = 0
		case r.IntN(12) == 0:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:size]
}

var synthTokens = []string{"int", "if", "else", "for", "while", "return", "static", "const",
	"char", "void", "struct", "(", ")", "{", "}", ";", "=", "==", "+", "-", "*", "->",
	"[", "]", "0", "1", "i", "n", "p", "buf", "len", "size", "#include", "<stdio.h>"}

func synthSource(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	depth := 0
	for b.Len() < size {
		b.WriteString("\n")
		for range depth {
			b.WriteByte('\t')
		}
		for range 1 + r.IntN(8) {
			t := synthTokens[zipf(r, len(synthTokens))]
			switch t {
			case "{":
				depth = min(depth+1, 6)
			case "}":
				depth = max(depth-1, 0)
			}
			b.WriteString(t)
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:size]
}

// synthRecords is a table of fixed-size little-endian records: a counter, a
// slowly drifting value, a small category and padding.
func synthRecords(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	v := r.Int32N(1 << 20)
	var rec [16]byte
	for i := uint32(0); b.Len() < size; i++ {
		v += r.Int32N(64) - 31
		binary.LittleEndian.PutUint32(rec[0:], i)
		binary.LittleEndian.PutUint32(rec[4:], uint32(v))
		rec[8] = byte(r.IntN(5))
		b.Write(rec[:])
	}
	return b.Bytes()[:size]
}

// synthRepeat repeats a short random motif, now and then mutated.
func synthRepeat(r *rand.Rand, size int) []byte {
	motif := make([]byte, 1+r.IntN(40))
	for i := range motif {
		motif[i] = byte(r.IntN(256))
	}
	b := make([]byte, size)
	for i := range b {
		b[i] = motif[i%len(motif)]
		if r.IntN(200) == 0 {
			b[i] = byte(r.IntN(256))
		}
	}
	return b
}

// synthRuns is runs of one byte, of lengths from 1 to several hundred (the
// initial run-length coding of bzip2 cuts runs at 4 to 255 bytes).
func synthRuns(r *rand.Rand, size int) []byte {
	b := make([]byte, 0, size)
	alphabet := 1 + r.IntN(16)
	for len(b) < size {
		c := byte('A' + r.IntN(alphabet))
		for range min(1+zipf(r, 600), size-len(b)) {
			b = append(b, c)
		}
	}
	return b
}

func synthRandom(r *rand.Rand, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// synthMixed is two to four pieces of other kinds, one after the other.
func synthMixed(r *rand.Rand, size int) []byte {
	parts := 2 + r.IntN(3)
	b := make([]byte, 0, size)
	for p := range parts {
		piece := (size - len(b)) / (parts - p)
		k := synthPlain[r.IntN(len(synthPlain))]
		b = append(b, k.make(r, piece)...)
	}
	return b
}
