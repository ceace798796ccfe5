// Package report turns what the store holds about an evolution run, or a
// comparison made by compare, into one self-contained HTML page: inline
// SVG charts drawn here, CSS in a <style> element, the champion's replay
// as a GIF in a data: URI — no script, no font, no file or address
// outside the page, so it opens offline and can be mailed as it is.
//
// Load reads everything in one short read-only transaction, so it is
// safe while a job writes to the store, and a run still in progress shows
// what is committed so far. AddReplay then plays the champion (outside
// any transaction) and Write renders the page.
//
// A run report holds: best, median and champion self-play efficiency,
// equality, sustainability and peace per iteration; the Elo of the
// global pool per iteration (champion, median and each member still
// rated); the champion's lineage as a tree with the operator on each
// edge; the final pool (a chain's policies for a chain run); the
// iterations and every candidate of each; the champion's source, syntax-coloured with go/scanner's
// token classes, and its replay. A run made by compare also gets the
// comparison it belongs to; a comparison report (id "cmp-…") holds only
// that: the Table-1-style table and one chart per column.
//
// What the store does not keep is derived, and the page says so where it
// matters: the Elo of a member at the end of an iteration is read from
// its rating's history (the last point before the iteration finished);
// a member evicted from the pool loses its rating, so its line is gone
// and only its Elo when promoted remains (drawn as a cross). A
// comparison's league ratings are fitted again from its stored matches,
// exactly as compare fitted them.
//
// The same pages serve a web site, the live view (report/live, `serve`):
// WritePage renders any View framed by a Frame, which links ids to the
// site's pages, loads the stylesheet and a script by URL and names the
// replays the site draws; the zero Frame makes the self-contained file
// report writes. Besides a run's or a comparison's report, the views are
// the list of runs (LoadRuns), a policy (LoadPolicy: source, origin,
// evaluations per seed, matches, Elo history, lineage), a pool sorted by
// a column (LoadPool), the pools (LoadPools), a diff of two sources
// (LoadDiff) and two policies side by side on one seed (LoadVersus). Each
// Load reads in one short read-only transaction; ReplayGIF plays a
// replay outside any.
//
// Every page is XHTML-compatible (well-formed XML as well as HTML5), which
// is how the tests check it without an HTML parser. Stored text (a
// policy's source above all, written by a model) goes through
// html/template and is always escaped.
package report
