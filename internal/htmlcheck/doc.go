// Package htmlcheck checks that a page is well-formed, self-contained
// HTML, for the tests of pages the program writes (the run report). It is
// test support, imported only by tests.
//
// There is no HTML parser in the module (golang.org/x/net/html is not a
// dependency), so pages are written XHTML-compatible — well-formed XML
// that is also HTML5 — and checked strictly with encoding/xml: every
// element closed and nested properly, every attribute quoted, no entity
// XML does not define. On top of that, Check refuses whatever would make
// the page reach outside itself or run code.
package htmlcheck
