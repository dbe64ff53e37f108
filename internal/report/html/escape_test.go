package html

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// evil is text that would break out of the page if it were not escaped.
const evil = `</script><script>alert("x")</script><b>&amp;</b>`

// evilPage is a count result whose names, labels and source hold evil.
func evilPage(t *testing.T) *Page {
	t.Helper()
	doc := map[string]any{
		"counters": 2, "runs": 1,
		"functions": []any{map[string]any{
			"name": "f" + evil, "file": "evil.c", "line": 1,
			"blocks": []any{
				map[string]any{"id": 0, "label": "entry" + evil, "lines": []int{1, 2}, "start": "evil.c:1:1", "count": 1},
				map[string]any{"id": 1, "label": `sw"\n\l` + evil, "lines": []int{3}, "start": "evil.c:3:1", "count": 0},
			},
			"edges": []any{map[string]any{"from": 0, "to": 1, "kind": "case", "case": evil, "count": 0}},
		}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	src := func(string) []string {
		return []string{`int f(void) { /* ` + evil + ` */`, `  puts("` + evil + `\n");`, `  return 0; }`}
	}
	p, err := Decode(data, src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEscaping checks that source text and names holding "</script>" and markup are
// shown as text: the page keeps exactly its two script elements, the text is escaped
// in the source view, in the panels and in the graph, and the embedded data gives
// back the names as they were.
func TestEscaping(t *testing.T) {
	needDot(t)
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"dot", Options{}},
		{"no-dot", Options{Dot: filepath.Join(t.TempDir(), "no-dot")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := evilPage(t)
			page := string(render(t, p, tc.o))
			scripts := regexp.MustCompile(`(?i)<script`).FindAllStringIndex(page, -1)
			if len(scripts) != 2 {
				t.Errorf("%d <script elements, want 2 (the data and the page's script)", len(scripts))
			}
			for _, bad := range []string{"<b>", `alert("x")`, "alert(&#34;x&#34;)</script>"} {
				if strings.Contains(page, bad) {
					t.Errorf("page holds %q unescaped", bad)
				}
			}
			// html/template escapes " as &#34;; dot as &quot;.
			if !strings.Contains(page, `puts(&#34;&lt;/script&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;b&gt;&amp;amp;&lt;/b&gt;\n&#34;);`) {
				t.Error("the source line is not shown escaped in the source view")
			}
			if tc.name == "dot" && !strings.Contains(page, `class="cfg-svg"`) {
				t.Error("dot did not draw the graph")
			}
			if tc.name == "dot" && !strings.Contains(page, `&lt;/script&gt;&lt;script&gt;alert(&quot;x&quot;)`) {
				t.Error("the label is not in the graph, escaped")
			}
			data, err := Data([]byte(page))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "</") || strings.Contains(string(data), "<script") {
				t.Error("the embedded data holds a raw tag")
			}
			var back Page
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if back.Funcs[0].Name != "f"+evil || back.Funcs[0].Edges[0].Case != evil {
				t.Errorf("data gives back %q, %q", back.Funcs[0].Name, back.Funcs[0].Edges[0].Case)
			}
		})
	}
}

func TestCleanSVG(t *testing.T) {
	for _, tc := range []struct {
		svg string
		ok  bool
	}{
		{`<svg width="1pt"><g id="a" class="node"><title>x</title><text>&lt;/script&gt;</text></g></svg>`, true},
		{`<svg><script>alert(1)</script></svg>`, false},
		{`<svg><g onclick="alert(1)"></g></svg>`, false},
		{`<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>`, false},
		{`<svg><foreignObject><div/></foreignObject></svg>`, false},
		{`<svg><g>`, false},
	} {
		_, err := cleanSVG([]byte(tc.svg))
		if (err == nil) != tc.ok {
			t.Errorf("cleanSVG(%s): %v", tc.svg, err)
		}
	}
}

func TestDotQuote(t *testing.T) {
	for in, want := range map[string]string{
		`a\nb`:       `"a\\nb"`,
		`say "hi"`:   `"say \"hi\""`,
		"tab\there":  `"tab here"`,
		"a && b":     `"a &amp;&amp; b"`,
		"bad\xffutf": "\"bad\uFFFDutf\"",
	} {
		if got := dotQuote(in); got != want {
			t.Errorf("dotQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := dotHTML(`<b a="1">&'`); got != "&lt;b a=&quot;1&quot;&gt;&amp;&#39;" {
		t.Errorf("dotHTML: %s", got)
	}
}
