// This file draws the CFGs: it writes one DOT graph per function, runs Graphviz's
// `dot -Tsvg` once for all of them, and checks the SVG before it enters the page.

package html

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxGraphBlocks is the size from which a function is listed instead of drawn: dot
// needs minutes for graphs of many thousands of nodes.
const MaxGraphBlocks = 2000

// dotTimeout bounds one run of dot over a batch of graphs.
const dotTimeout = 2 * time.Minute

// excerptLines is how many source lines a node shows, and excerptWidth how many
// characters of each.
const (
	excerptLines = 3
	excerptWidth = 38
)

// funcDOT writes function fi as a DOT digraph. The SVG that dot makes of it has the
// graph as <g id="g-fN">, each block as <g id="n-fN-bB" class="node blk st-STATE">
// and each edge as <g id="e-fN-E" class="edge">.
func (p *Page) funcDOT(w io.Writer, fi int) {
	f := p.Funcs[fi]
	fmt.Fprintf(w, "digraph \"f%d\" {\n", fi)
	fmt.Fprintf(w, "  graph [id=\"g-f%d\" bgcolor=\"transparent\" nodesep=0.25 ranksep=0.3 fontname=\"Helvetica\"];\n", fi)
	fmt.Fprintf(w, "  node [shape=box style=\"rounded,filled\" fontname=\"Helvetica\" fontsize=10 margin=\"0.06,0.03\" penwidth=1 color=\"#444444\"];\n")
	fmt.Fprintf(w, "  edge [fontname=\"Helvetica\" fontsize=9 color=\"#555555\" fontcolor=\"#333333\" arrowsize=0.7];\n")
	maxEdge := 0.0
	for _, e := range f.Edges {
		if e.Value != nil {
			maxEdge = max(maxEdge, *e.Value)
		}
	}
	for _, b := range f.Blocks {
		style, extra := "rounded,filled", ""
		switch b.State {
		case "constant":
			style = "rounded,filled,dashed"
		case "inadequate", "rare":
			style, extra = "rounded,filled,dotted", ` color="#7b3294" penwidth=3`
		case "unseen":
			style = "rounded,filled,dotted"
		case "unconverged":
			style, extra = "rounded,filled,dashed", ` color="#2166ac" penwidth=3`
		}
		class := "blk"
		if b.State != "" {
			class += " st-" + b.State
		}
		if b.Value != nil && *b.Value == 0 {
			class += " never"
		}
		fmt.Fprintf(w, "  b%d [id=\"n-%s\" class=\"%s\" style=\"%s\" fillcolor=\"%s\" fontcolor=\"%s\"%s tooltip=%s label=<%s>];\n",
			b.ID, b.Ref, class, style, b.Color, textColor(b.Heat), extra, dotQuote(p.blockTip(f, b)), p.nodeLabel(f, b))
	}
	for _, e := range f.Edges {
		attrs := fmt.Sprintf("id=\"e-f%d-%d\"", fi, e.ID)
		if label := p.edgeLabel(f, e); label != "" {
			attrs += " label=" + dotQuote(label)
		}
		switch {
		case e.Value != nil && *e.Value == 0:
			attrs += ` style=dashed color="#bbbbbb"`
		case e.Value != nil && maxEdge > 0:
			attrs += fmt.Sprintf(" penwidth=%.2f", 1+3*math.Sqrt(*e.Value/maxEdge))
		}
		attrs += " tooltip=" + dotQuote(p.edgeTip(f, e))
		fmt.Fprintf(w, "  b%d -> b%d [%s];\n", e.From, e.To, attrs)
	}
	fmt.Fprintf(w, "}\n")
}

// valueText prints a block's value: "8.774 ± 0.1496", "1 (exact)", "12".
func (p *Page) valueText(b *Block) string {
	if b.Value == nil {
		return ""
	}
	s := num(*b.Value)
	switch {
	case b.State == "constant":
		s += " (exact)"
	case b.HalfWidth != nil:
		s += " ± " + num(*b.HalfWidth)
	case p.Kind == KindFreq:
		s += " ± ?"
	}
	return s
}

// stateText prints a block's state with its mark: "✓ converged @31".
func stateText(b *Block) string {
	switch b.State {
	case "converged":
		if b.DecidedAt > 0 {
			return fmt.Sprintf("✓ converged @%d", b.DecidedAt)
		}
		return "✓ converged"
	case "constant":
		return "= constant"
	case "inadequate":
		return "⚠ inadequate"
	case "rare":
		return "⚠ rare"
	case "unseen":
		return "∅ unseen"
	case "unconverged":
		if b.NeedTrials != nil {
			return fmt.Sprintf("✗ unconverged (needs ~%.0f)", *b.NeedTrials)
		}
		return "✗ unconverged"
	}
	return b.State
}

// linesText prints a block's lines compactly: "12–14", "9,11".
func linesText(lines []int) string {
	var parts []string
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(lines[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", lines[i], lines[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// excerpt returns up to excerptLines source lines of a block, trimmed and shortened.
func (p *Page) excerpt(b *Block) []string {
	var out []string
	for _, n := range b.Lines {
		if len(out) == excerptLines {
			break
		}
		t := strings.Join(strings.Fields(p.text(b.File, n)), " ")
		if t == "" {
			continue
		}
		if utf8.RuneCountInString(t) > excerptWidth {
			t = string([]rune(t)[:excerptWidth-1]) + "…"
		}
		out = append(out, t)
	}
	return out
}

// nodeLabel is a block's HTML-like label: label, id and lines; source excerpt; value;
// state. All text is escaped for Graphviz's HTML-like labels.
func (p *Page) nodeLabel(f *Func, b *Block) string {
	var sb strings.Builder
	sb.WriteString(`<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">`)
	row := func(s string) { sb.WriteString(`<TR><TD ALIGN="LEFT">` + s + `</TD></TR>`) }
	head := "<B>" + dotHTML(b.Label) + "</B>"
	small := fmt.Sprintf(" #%d", b.ID)
	if len(b.Lines) > 0 {
		small += " · line " + linesText(b.Lines)
	}
	row(head + `<FONT POINT-SIZE="8">` + dotHTML(small) + `</FONT>`)
	for _, t := range p.excerpt(b) {
		// Browsers draw monospace text up to 4 % wider than dot's estimate of
		// Courier: two trailing no-break spaces keep it inside the box.
		row(`<FONT FACE="Courier" POINT-SIZE="8">` + dotHTML(t) + "&#160;&#160;</FONT>")
	}
	if v := p.valueText(b); v != "" {
		row(dotHTML(v))
	}
	if b.State != "" {
		row(`<FONT POINT-SIZE="8">` + dotHTML(stateText(b)) + `</FONT>`)
	}
	if b.Diff != nil {
		row(`<FONT POINT-SIZE="8">` + dotHTML("Δ "+b.Diff.String()) + `</FONT>`)
	}
	sb.WriteString(`</TABLE>`)
	return sb.String()
}

func (p *Page) blockTip(f *Func, b *Block) string {
	s := fmt.Sprintf("%s: block %d %s", f.Name, b.ID, b.Label)
	if v := p.valueText(b); v != "" {
		s += ": " + v
	}
	if b.State != "" {
		s += ", " + b.State
	}
	return s + " (click for details)"
}

func (p *Page) edgeLabel(f *Func, e *Edge) string {
	kind := ""
	switch e.Kind {
	case "true":
		kind = "T"
	case "false":
		kind = "F"
	case "case":
		kind = "case " + e.Case
	case "default":
		kind = "default"
	}
	branching := len(outEdges(f, e.From)) > 1
	var parts []string
	if kind != "" {
		parts = append(parts, kind)
	}
	if p.Kind != KindFreq && e.Value != nil {
		parts = append(parts, "×"+num(*e.Value))
	}
	if e.Prob != nil && branching {
		parts = append(parts, "p "+num(*e.Prob))
	}
	return strings.Join(parts, " ")
}

func (p *Page) edgeTip(f *Func, e *Edge) string {
	s := fmt.Sprintf("%s → %s (%s", f.Blocks[e.From].Label, f.Blocks[e.To].Label, e.Kind)
	if e.Kind == "case" {
		s += " " + e.Case
	}
	s += ")"
	if e.Value != nil {
		s += ": " + num(*e.Value)
	}
	if e.Prob != nil {
		s += ", p = " + num(*e.Prob)
	}
	return s
}

func outEdges(f *Func, b int) []*Edge {
	var out []*Edge
	for _, e := range f.Edges {
		if e.From == b {
			out = append(out, e)
		}
	}
	return out
}

// dotHTML escapes text for a Graphviz HTML-like label: the XML specials, and control
// characters and invalid UTF-8, which Graphviz rejects.
func dotHTML(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var sb strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			sb.WriteString("&amp;")
		case '<':
			sb.WriteString("&lt;")
		case '>':
			sb.WriteString("&gt;")
		case '"':
			sb.WriteString("&quot;")
		case '\'':
			sb.WriteString("&#39;")
		default:
			if unicode.IsControl(r) {
				sb.WriteRune(' ')
			} else {
				sb.WriteRune(r)
			}
		}
	}
	return sb.String()
}

// dotQuote quotes a string for DOT. Backslashes are doubled, so that Graphviz's escapes
// (\n, \l, \N) cannot be spelled by source text, and & is written as &amp;, since
// Graphviz decodes entities in strings.
func dotQuote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '"':
			sb.WriteString(`\"`)
		case r == '&':
			sb.WriteString("&amp;")
		case unicode.IsControl(r):
			sb.WriteByte(' ')
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// drawGraphs returns the SVG of every function (nil for one listed instead of drawn),
// or an error saying why none could be drawn. The functions are split into as many
// batches of about equal size as there are CPUs, one dot process each.
func (p *Page) drawGraphs(dotPath string) ([][]byte, error) {
	out := make([][]byte, len(p.Funcs))
	var drawn []int
	total := 0
	for fi, f := range p.Funcs {
		if len(f.Blocks) == 0 || len(f.Blocks) > MaxGraphBlocks {
			continue
		}
		drawn = append(drawn, fi)
		total += len(f.Blocks) + len(f.Edges)
	}
	if len(drawn) == 0 {
		return out, nil
	}
	if dotPath == "" {
		var err error
		if dotPath, err = exec.LookPath("dot"); err != nil {
			return nil, errors.New("Graphviz's dot was not found (install the graphviz package): graphs are shown as lists")
		}
	}
	var batches [][]int
	per := total/runtime.NumCPU() + 1
	size := per
	for _, fi := range drawn {
		if size >= per {
			batches = append(batches, nil)
			size = 0
		}
		batches[len(batches)-1] = append(batches[len(batches)-1], fi)
		size += len(p.Funcs[fi].Blocks) + len(p.Funcs[fi].Edges)
	}
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for k, batch := range batches {
		var in bytes.Buffer
		for _, fi := range batch {
			p.funcDOT(&in, fi)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			svgs, err := runDot(dotPath, &in, len(batch))
			for i, fi := range batch {
				if err == nil {
					out[fi], err = cleanSVG(svgs[i])
					if err != nil {
						err = fmt.Errorf("the SVG of function %s: %v: graphs are shown as lists", p.Funcs[fi].Name, err)
					}
				}
			}
			errs[k] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runDot runs dot -Tsvg on n graphs and returns their SVG documents.
func runDot(dotPath string, in io.Reader, n int) ([][]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dotPath, "-Tsvg")
	cmd.Stdin = in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, fmt.Errorf("running %s -Tsvg failed (%v) %s: graphs are shown as lists", dotPath, err, msg)
	}
	svgs := splitSVG(stdout.Bytes())
	if len(svgs) != n {
		return nil, fmt.Errorf("dot drew %d graphs for %d functions: graphs are shown as lists", len(svgs), n)
	}
	return svgs, nil
}

var (
	svgStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<svg[\s>]`) })
	comment  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->\n?`) })
)

// splitSVG splits dot's output for several graphs into one document each.
func splitSVG(data []byte) [][]byte {
	var out [][]byte
	for {
		i := svgStart().FindIndex(data)
		if i == nil {
			return out
		}
		data = data[i[0]:]
		end := bytes.Index(data, []byte("</svg>"))
		if end < 0 {
			return out
		}
		end += len("</svg>")
		out = append(out, data[:end])
		data = data[end:]
	}
}

// svgElements are the elements dot's SVG is allowed to hold in the page.
var svgElements = map[string]bool{
	"svg": true, "g": true, "title": true, "polygon": true, "polyline": true, "path": true,
	"ellipse": true, "text": true, "a": true, "defs": true, "tspan": true,
	"linearGradient": true, "radialGradient": true, "stop": true,
}

// cleanSVG drops comments and checks that the SVG holds only drawing elements: no
// script, no event handler, no link. dot escapes the text it was given, so this only
// guards against a Graphviz that would not.
func cleanSVG(svg []byte) ([]byte, error) {
	svg = comment().ReplaceAll(svg, nil)
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("malformed SVG: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !svgElements[t.Name.Local] {
				return nil, fmt.Errorf("unexpected element <%s>", t.Name.Local)
			}
			for _, a := range t.Attr {
				n := strings.ToLower(a.Name.Local)
				if strings.HasPrefix(n, "on") || n == "href" || n == "src" {
					return nil, fmt.Errorf("unexpected attribute %s", a.Name.Local)
				}
			}
		case xml.ProcInst, xml.Directive:
			return nil, errors.New("unexpected processing instruction or directive")
		}
	}
	// dot writes "-" as "&#45;" (for the comment syntax); ids read better without.
	svg = bytes.ReplaceAll(svg, []byte("&#45;"), []byte("-"))
	return bytes.Replace(svg, []byte("<svg "), []byte(`<svg class="cfg-svg" role="img" `), 1), nil
}
