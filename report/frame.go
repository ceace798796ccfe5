package report

import (
	_ "embed"
	"html/template"
	"io"
	"net/url"

	"policyevolve/store"
)

//go:embed page.css
var pageCSS string

// Stylesheet is the CSS of every page: a report file holds it in a
// <style> element, a served page (Frame.Stylesheet) loads it by URL.
func Stylesheet() string { return pageCSS }

// Frame places a page in a web site: the live view (report/live) serves
// the same pages as the report writes, linked to each other and kept up
// to date by a script. The zero value makes a self-contained file, as
// report writes it: CSS inline, no script, ids as plain text.
type Frame struct {
	// Stylesheet is the URL of Stylesheet(); "" puts the CSS in the page.
	Stylesheet string
	// Script is the URL of a script the page loads; "" loads none.
	Script string
	// Version names the state of the store the page shows, in a
	// <meta name="policyevolve-version"> element, for the script.
	Version string
	// Nav are the site's links, above the title.
	Nav []Link
	// PolicyURL, PoolURL and RunURL are the pages of a policy, a pool and
	// a run; nil leaves ids as text.
	PolicyURL func(id string) string
	PoolURL   func(name string) string
	RunURL    func(id string) string
	// ReplayURL is where the GIF of a replay is served. A page with a
	// replay but no ReplayURL embeds the GIF when it has been made (a
	// run's champion, by AddReplay) and otherwise says there is none.
	ReplayURL func(ReplayRef) string
	// DiffPath and VersusPath are the site's diff of two sources and its
	// side-by-side replay of two policies, which take the policies as
	// query parameters a and b (VersusPath also seed and env); "" leaves
	// the links and forms to them out.
	DiffPath, VersusPath string
}

// Link is a link of a site's navigation.
type Link struct{ Text, URL string }

// ReplayRef names a replay: a policy in self-play on an environment and
// seed. Run, when set, is a run whose configuration resolves the
// environment (its map may be a file).
type ReplayRef struct {
	Policy string
	Env    store.EnvConfig
	Run    string
	Seed   uint64
}

func (f *Frame) policyURL(id string) string {
	if f.PolicyURL == nil || id == "" {
		return ""
	}
	return f.PolicyURL(id)
}

func (f *Frame) poolURL(name string) string {
	if f.PoolURL == nil || name == "" {
		return ""
	}
	return f.PoolURL(name)
}

func (f *Frame) runURL(id string) string {
	if f.RunURL == nil || id == "" {
		return ""
	}
	return f.RunURL(id)
}

// pairURL is the page at path (DiffPath or VersusPath) for policies a
// and b; "" without the path.
func pairURL(path, a, b string) string {
	if path == "" {
		return ""
	}
	return path + "?" + url.Values{"a": {a}, "b": {b}}.Encode()
}

// View is a page: a run's or a comparison's report, the list of runs, a
// policy, a pool, the list of pools, a diff of two sources, two policies
// played side by side.
type View interface {
	page(f *Frame) *page
}

// WritePage renders v as one HTML page framed by f. The page is
// well-formed XML as well (XHTML-compatible): every element closed, no
// named entity, no character XML forbids.
func WritePage(w io.Writer, v View, f Frame) error {
	p := v.page(&f)
	p.Frame = f
	p.CSS = template.CSS(pageCSS)
	return execute(w, p)
}

// Problem is a page that says what went wrong: the live view's answer to
// an unknown id or a store it cannot read.
type Problem struct{ Title, Message string }

func (pr Problem) page(*Frame) *page { return &page{Title: pr.Title, Problem: pr.Message} }
