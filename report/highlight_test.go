package report

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

func TestHighlight(t *testing.T) {
	src := "package policy\n\n// Policy moves.\nfunc Policy(v *ssd.View, agent int) int {\n\tn := len(\"a<b\") + 0x1F\n\treturn helper(n, 'x', nil)\n}\n"
	got := string(Highlight(src))
	for _, want := range []string{
		`<span class="k">package</span> policy`,
		`<span class="c">// Policy moves.</span>`,
		`<span class="k">func</span> <span class="f">Policy</span>(v *ssd.View, agent <span class="b">int</span>)`,
		`<span class="b">len</span>(<span class="s">&#34;a&lt;b&#34;</span>) + <span class="n">0x1F</span>`,
		`<span class="f">helper</span>(n, <span class="s">&#39;x&#39;</span>, <span class="b">nil</span>)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
}

var spanTag = regexp.MustCompile(`</?span[^>]*>`)

// FuzzHighlight: whatever the text, Go or not, the highlighted HTML is
// the text itself once the spans are dropped and the escapes undone, and
// every span is closed.
func FuzzHighlight(f *testing.F) {
	for _, s := range []string{"package p\nfunc f() { return `raw\r\nstring` }\n", "/* open comment", "\"unterminated", "x := 1e3i + 'a'\x00", "\xff\xfe<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got := string(Highlight(src))
		if strings.Count(got, "<span") != strings.Count(got, "</span>") {
			t.Fatalf("unbalanced spans in %q", got)
		}
		plain := html.UnescapeString(spanTag.ReplaceAllString(got, ""))
		want := strings.ReplaceAll(strings.ReplaceAll(src, "\r", ""), "\x00", "\uFFFD")
		if plain != want {
			t.Fatalf("text changed:\n got %q\nwant %q", plain, want)
		}
	})
}
