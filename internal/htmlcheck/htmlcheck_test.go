package htmlcheck

import (
	"strings"
	"testing"
)

const good = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><title>t</title><style>a{color:red}</style></head>
<body><p id="x">hello <b>you</b> &amp; &#39;me&#39;</p><img src="data:image/gif;base64,R0lG" alt=""/>
<a href="#x">up</a><svg viewBox="0 0 1 1"><circle cx="1" cy="1" r="1"><title>tip</title></circle></svg></body></html>`

func TestCheckAccepts(t *testing.T) {
	p, err := Check([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if p.Elements["circle"] != 1 || p.Elements["p"] != 1 || p.IDs["x"] != "hello you & 'me'" {
		t.Errorf("got %+v", p)
	}
}

// TestCheckRefuses: each change breaks one rule, and Check says which.
func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct{ name, from, to, want string }{
		{"unclosed void element", `<meta charset="utf-8"/>`, `<meta charset="utf-8">`, "not well-formed"},
		{"misnested", `<b>you</b>`, `<b>you</p>`, "not well-formed"},
		{"HTML entity", `&amp;`, `&nbsp;`, "not well-formed"},
		{"unquoted attribute", `lang="en"`, `lang=en`, "not well-formed"},
		{"no doctype", `<!DOCTYPE html>`, ``, "DOCTYPE"},
		{"script", `<title>t</title>`, `<title>t</title><script>1</script>`, "<script>"},
		{"stylesheet", `<title>t</title>`, `<title>t</title><link rel="stylesheet" href="a.css"/>`, "<link>"},
		{"external image", `data:image/gif;base64,R0lG`, `https://example.com/a.gif`, "refers outside"},
		{"external link", `href="#x"`, `href="page.html"`, "refers outside"},
		{"event handler", `<p id="x">`, `<p id="x" onclick="f()">`, "event handler"},
		{"CSS url", `a{color:red}`, `a{background:url(http://x/y.png)}`, "url()"},
		{"duplicate id", `<a href="#x">`, `<a id="x" href="#x">`, "used twice"},
		{"two bodies", `</body></html>`, `</body><body></body></html>`, "2 <body>"},
		{"no title", `<title>t</title>`, ``, "0 <title>"},
	} {
		page := strings.Replace(good, c.from, c.to, 1)
		if page == good {
			t.Fatalf("%s: the change did nothing", c.name)
		}
		_, err := Check([]byte(page))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestCheckServed: a served page may load its stylesheet and script from
// its server and link to its pages, and nothing more.
func TestCheckServed(t *testing.T) {
	served := strings.Replace(good, `<style>a{color:red}</style>`,
		`<link rel="stylesheet" href="/static/report.css"/><script src="/static/live.js" defer="defer"></script>`, 1)
	served = strings.Replace(served, `href="#x"`, `href="/policies/ab?seed=1"`, 1)
	if _, err := CheckServed([]byte(served)); err != nil {
		t.Fatalf("CheckServed: %v", err)
	}
	if _, err := Check([]byte(served)); err == nil {
		t.Error("Check accepts a page that loads a script")
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"inline script", `<script src="/static/live.js" defer="defer"></script>`, `<script>alert(1)</script>`, "script"},
		{"script from elsewhere", `src="/static/live.js"`, `src="//evil.example/x.js"`, "<script>"},
		{"stylesheet from elsewhere", `href="/static/report.css"`, `href="https://cdn.example/a.css"`, "<link>"},
		{"link elsewhere", `href="/policies/ab?seed=1"`, `href="https://example.com/"`, "refers outside"},
		{"event handler", `<p id="x">`, `<p id="x" onclick="f()">`, "event handler"},
	} {
		page := strings.Replace(served, c.from, c.to, 1)
		if page == served {
			t.Fatalf("%s: %q not in the page", c.name, c.from)
		}
		if _, err := CheckServed([]byte(page)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error about %q", c.name, err, c.want)
		}
	}
}
