package html

import (
	"encoding/json"
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
