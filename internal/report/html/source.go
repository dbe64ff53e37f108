// This file builds the source view: every source file with per-line values in the
// margin, like gcov's annotated source and gcovr's HTML.

package html

import (
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/report"
)

// A File is one source file of the source view.
type File struct {
	Name string `json:"name"`
	// Missing reports that its text could not be read (the report was made elsewhere:
	// see `fragprof report --source-path`); the view then lists the code lines only.
	Missing bool    `json:"missing,omitempty"`
	Lines   []*Line `json:"lines"` // the lines that hold code, in order
	text    []string
}

// A Line is a source line that holds code.
type Line struct {
	N int `json:"line"`
	// Value is the largest value of the blocks with code on the line (gcov's rule
	// for a line shared by several blocks differs slightly: it counts entries).
	Value  *float64 `json:"value"`
	Heat   float64  `json:"heat"`
	Color  string   `json:"color"`
	Hot    bool     `json:"hot,omitempty"` // Heat ≥ HotHeat: highlighted
	Blocks []string `json:"blocks"`        // refs of the blocks with code on the line
}

// A Row is one line of a file as the view prints it.
type Row struct {
	N    int
	Text string
	Line *Line // nil for a line without code
}

// Rows returns every line of the file, or only its code lines when the text is
// missing.
func (f *File) Rows() []Row {
	byN := map[int]*Line{}
	for _, l := range f.Lines {
		byN[l.N] = l
	}
	var rows []Row
	if f.Missing {
		for _, l := range f.Lines {
			rows = append(rows, Row{N: l.N, Line: l})
		}
		return rows
	}
	for i, t := range f.text {
		rows = append(rows, Row{N: i + 1, Text: strings.TrimRight(t, "\r"), Line: byN[i+1]})
	}
	return rows
}

func buildFiles(p *Page, src report.Sources) []*File {
	var files []*File
	for _, name := range p.sortedFiles() {
		f := &File{Name: name, Lines: []*Line{}}
		if src != nil {
			f.text = src(name)
		}
		if f.text == nil {
			f.Missing = true
		} else if n := len(f.text); n > 0 && f.text[n-1] == "" {
			f.text = f.text[:n-1]
		}
		byN := map[int]*Line{}
		for _, fn := range p.Funcs {
			for _, b := range fn.Blocks {
				if b.File != name {
					continue
				}
				for _, n := range b.Lines {
					l := byN[n]
					if l == nil {
						l = &Line{N: n, Blocks: []string{}}
						byN[n] = l
						f.Lines = append(f.Lines, l)
					}
					l.Blocks = append(l.Blocks, b.Ref)
					if b.Value != nil && (l.Value == nil || *b.Value > *l.Value) {
						v := *b.Value
						l.Value = &v
					}
				}
			}
		}
		sort.Slice(f.Lines, func(i, j int) bool { return f.Lines[i].N < f.Lines[j].N })
		for _, l := range f.Lines {
			l.Heat, l.Color = p.heat(l.Value)
			l.Hot = l.Value != nil && *l.Value > 0 && l.Heat >= HotHeat
		}
		files = append(files, f)
	}
	return files
}

// text returns line n (1-based) of file, or "".
func (p *Page) text(file string, n int) string {
	for _, f := range p.Files {
		if f.Name == file {
			if n >= 1 && n <= len(f.text) {
				return f.text[n-1]
			}
			return ""
		}
	}
	return ""
}
