package htmlcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Page is what Check found: how many elements of each name, the id
// attributes with the text inside each, and the text of the page.
type Page struct {
	Elements map[string]int
	IDs      map[string]string
	Text     string
}

// forbidden are elements that load or run something.
var forbidden = map[string]bool{"script": true, "link": true, "iframe": true, "object": true, "embed": true,
	"base": true, "frame": true, "frameset": true, "applet": true, "audio": true, "video": true, "source": true}

// Check parses page strictly and checks that it is one self-contained
// HTML document: a <!DOCTYPE html>, one html element holding one head
// (with one title) and one body; no element that loads or runs anything
// (script, link, iframe…); no event-handler attribute; every src, href
// and xlink:href a fragment (#…) or a data: URI; no url() in CSS but
// data: ones; no id used twice.
func Check(page []byte) (*Page, error) { return check(page, false) }

// CheckServed checks a page a web server of ours serves (report/live) as
// strictly as Check, except that it may load a stylesheet and scripts
// from its own server and link to its pages: a <link rel="stylesheet">
// and a <script> whose href or src is a path on the same server ("/…",
// never "//…"), with no inline script; every other src, href or form
// action a fragment, a data: URI or such a path.
func CheckServed(page []byte) (*Page, error) { return check(page, true) }

func check(page []byte, served bool) (*Page, error) {
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	p := &Page{Elements: map[string]int{}, IDs: map[string]string{}}
	var stack []string
	var open []struct {
		id    string
		start int
	}
	var text strings.Builder
	doctype := false
	headTitles := 0 // <title> in an SVG is a tooltip, not the page's
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not well-formed: %w", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if strings.ToLower(strings.TrimSpace(string(t))) != "doctype html" || len(stack) > 0 || p.Elements["html"] > 0 {
				return nil, fmt.Errorf("unexpected directive <!%s>", t)
			}
			doctype = true
		case xml.ProcInst:
			return nil, fmt.Errorf("processing instruction <?%s?>", t.Target)
		case xml.StartElement:
			name := t.Name.Local
			if !doctype {
				return nil, errors.New("no <!DOCTYPE html> before the first element")
			}
			if len(stack) == 0 && (name != "html" || p.Elements["html"] > 0) {
				return nil, fmt.Errorf("<%s> at the top level: want one <html>", name)
			}
			if forbidden[name] && !(served && loadsFromServer(t)) {
				return nil, fmt.Errorf("<%s> element: the page must load and run nothing", name)
			}
			p.Elements[name]++
			if name == "title" && len(stack) > 0 && stack[len(stack)-1] == "head" {
				headTitles++
			}
			id := ""
			for _, a := range t.Attr {
				if err := checkAttr(name, a, served); err != nil {
					return nil, err
				}
				if a.Name.Local == "id" {
					if _, dup := p.IDs[a.Value]; dup {
						return nil, fmt.Errorf("id %q used twice", a.Value)
					}
					p.IDs[a.Value] = ""
					id = a.Value
				}
			}
			stack = append(stack, name)
			open = append(open, struct {
				id    string
				start int
			}{id, text.Len()})
		case xml.EndElement:
			top := open[len(open)-1]
			if top.id != "" {
				p.IDs[top.id] = text.String()[top.start:]
			}
			stack, open = stack[:len(stack)-1], open[:len(open)-1]
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "script" && strings.TrimSpace(string(t)) != "" {
				return nil, errors.New("inline <script>: a served page loads its script from its server")
			}
			if len(stack) > 0 && stack[len(stack)-1] == "style" && strings.Contains(strings.ToLower(string(t)), "url(") &&
				!onlyDataURLs(string(t)) {
				return nil, errors.New("<style> refers to a url() that is not a data: URI")
			}
			text.Write(t)
		}
	}
	for _, want := range []string{"html", "head", "body"} {
		if p.Elements[want] != 1 {
			return nil, fmt.Errorf("%d <%s> elements, want 1", p.Elements[want], want)
		}
	}
	if headTitles != 1 {
		return nil, fmt.Errorf("%d <title> elements in <head>, want 1", headTitles)
	}
	p.Text = text.String()
	return p, nil
}

// loadsFromServer: a <script src> or <link rel="stylesheet" href> on the
// same server.
func loadsFromServer(t xml.StartElement) bool {
	attr := map[string]string{}
	for _, a := range t.Attr {
		attr[strings.ToLower(a.Name.Local)] = a.Value
	}
	switch t.Name.Local {
	case "script":
		return samePath(attr["src"])
	case "link":
		return attr["rel"] == "stylesheet" && samePath(attr["href"])
	}
	return false
}

// samePath: a path on the same server, "/…" but not "//…" (which names
// another host).
func samePath(v string) bool {
	return strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && !strings.Contains(v, "\\")
}

// checkAttr refuses an attribute that runs code or reaches outside (a
// served page may also refer to paths on its server).
func checkAttr(elem string, a xml.Attr, served bool) error {
	name := strings.ToLower(a.Name.Local)
	switch {
	case strings.HasPrefix(name, "on"):
		return fmt.Errorf("<%s %s>: event handler attribute", elem, a.Name.Local)
	case name == "src" || name == "href" || name == "srcset" || name == "action" || name == "poster" || name == "data":
		v := strings.TrimSpace(a.Value)
		if !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "data:") && !(served && samePath(v)) {
			return fmt.Errorf("<%s %s=%q>: refers outside the page", elem, a.Name.Local, short(v))
		}
	case name == "style" && strings.Contains(strings.ToLower(a.Value), "url(") && !onlyDataURLs(a.Value):
		return fmt.Errorf("<%s style>: url() that is not a data: URI", elem)
	}
	return nil
}

// onlyDataURLs reports whether every url( in css is a data: URI.
func onlyDataURLs(css string) bool {
	s := strings.ToLower(css)
	for {
		i := strings.Index(s, "url(")
		if i < 0 {
			return true
		}
		s = strings.TrimLeft(s[i+4:], " \t\n'\"")
		if !strings.HasPrefix(s, "data:") {
			return false
		}
	}
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
