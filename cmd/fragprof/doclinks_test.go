// Tests that the user's guide holds together: every relative link of README.md and
// docs/*.md names a file of the repository and, with a #fragment, a heading of it.

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches an inline Markdown link or image, [text](target); its target is
// group 1 (a title after a space is not used by these docs).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// htmlAnchor matches an explicit anchor, <a id="x"> or <a name="x">.
var htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

// codeSpan matches an inline code span, whose brackets are not links.
var codeSpan = regexp.MustCompile("`[^`]*`")

// headingSlug is the anchor GitHub gives a heading: lower case, every character
// but letters, digits, spaces, hyphens and underscores dropped, spaces turned into
// hyphens (github.com/gjtorikian/html-pipeline's TableOfContentsFilter).
func headingSlug(heading string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			sb.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// mdText is a Markdown file's lines, those of fenced code blocks left empty.
func mdText(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			line = ""
		}
		if fenced {
			line = ""
		}
		out = append(out, line)
	}
	return out
}

// anchors returns the anchors of a Markdown file: its headings' slugs (a repeated
// slug gets -1, -2, ... as on GitHub) and its explicit HTML anchors.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	seen := map[string]int{}
	for _, line := range mdText(t, path) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			set[m[1]] = true
		}
		if !strings.HasPrefix(line, "#") {
			continue
		}
		s := headingSlug(strings.TrimSpace(strings.TrimLeft(line, "#")))
		if n := seen[s]; n > 0 {
			set[s+"-"+itoa(n)] = true
		} else {
			set[s] = true
		}
		seen[s]++
	}
	return set
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestHeadingSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Counting overhead (`bench/overhead.sh`)":                      "counting-overhead-benchoverheadsh",
		"The simplified CFG (`--simplified`, `FRAGPROF_SIMPLIFIED=1`)": "the-simplified-cfg---simplified-fragprof_simplified1",
		"Choosing the predictor, and how sure it is":                   "choosing-the-predictor-and-how-sure-it-is",
		"Sampling cost of the process tree (`bench/samplecost.sh`)":    "sampling-cost-of-the-process-tree-benchsamplecostsh",
		"Monte Carlo frequencies — Shalimov’s rule":                    "monte-carlo-frequencies--shalimovs-rule",
	} {
		if got := headingSlug(heading); got != want {
			t.Errorf("headingSlug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestDocLinks follows every relative link of README.md and docs/*.md.
func TestDocLinks(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) < 10 {
		t.Fatalf("docs: %v, %d files", err, len(docs))
	}
	docs = append(docs, "../../README.md")
	checked := 0
	for _, doc := range docs {
		for i, line := range mdText(t, doc) {
			line = codeSpan.ReplaceAllString(line, "")
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, frag, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.Join(filepath.Dir(doc), file)
				}
				where := filepath.Base(doc) + ":" + itoa(i+1)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: no file %s", where, target, file)
					continue
				}
				if frag != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[frag] {
					t.Errorf("%s: link %q: %s has no heading #%s", where, target, filepath.Base(path), frag)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found: the link pattern no longer matches the docs", checked)
	}
}
