//go:build integration

package html

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
