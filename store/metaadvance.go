package store

import (
	"fmt"
	"os"
)

// maxTxid is the highest transaction id a sound store may carry. bbolt
// gives each write transaction the id of the last plus one and, when it
// opens a file, reads the meta page of the higher id; a meta page whose
// id cannot grow (2^64-1 wraps to 0 on the next commit) wins over every
// later commit, which is then lost without an error. No store reaches
// 2^48 commits (about 2,000 years at one commit per 265 µs), so an id
// above it is damage — a crafted or corrupted meta page that passes its
// checksum.
const maxTxid = uint64(1) << 48

// advanceProblem says why writes to the store of header h would not
// last, or "" when they would. The meta page's other fields that could
// lose writes (the root and freelist pages, the pages in use against the
// file's size) are checked by readHeader for every open.
func advanceProblem(h *header) string {
	for i, m := range h.metas {
		if m.problem == "" && m.txid >= maxTxid {
			return fmt.Sprintf("meta page %d gives transaction id %d, beyond any a store reaches (2^48): a commit would not outlast it, and writes would be lost; store compact rewrites the store with fresh ids", i, m.txid)
		}
	}
	return ""
}

// checkAdvance reports, as damage, a store whose writes would not last
// (advanceProblem), for store check. Every write refuses such a store
// (precheck); reads do not: the records read as they are, and store
// compact, which reads them, is the way out.
func checkAdvance(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer f.Close()
	h, err := readHeader(f)
	if err != nil {
		return err // reported as every open reports it
	}
	if p := advanceProblem(h); p != "" {
		return &DamageError{Path: path, Problem: p}
	}
	return nil
}
