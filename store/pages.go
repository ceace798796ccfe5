package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"syscall"

	"policyevolve/internal/infile"
)

// This file reads a bbolt file (format version 2, as bbolt v1.4 writes it)
// without bbolt, trusting nothing it reads: every offset, count and page
// id is checked against the bytes at hand before it is followed. bbolt
// itself maps the file and follows its pointers as they are, so a damaged
// file can make it panic, or fault on a page past the end of a truncated
// file; the store checks a file here first (precheck, at every open: the
// meta pages and the file's size) and walks all its pages here when asked
// to check it (walkFile). The layout, in native byte order:
//
//   - page header, 16 bytes: id uint64, flags uint16, count uint16,
//     overflow uint32 (the pages that follow it as one);
//   - meta page (pages 0 and 1, the newer valid one counts): after the
//     header, magic uint32, version uint32, page size uint32, flags uint32,
//     root bucket (root page uint64, sequence uint64), freelist page
//     uint64, high-water mark uint64 (the pages in use are below it),
//     transaction id uint64, then the FNV-64a checksum of the 56 bytes
//     before it;
//   - branch page: count elements of 16 bytes (key position uint32, key
//     size uint32, child page uint64), positions relative to the element;
//   - leaf page: count elements of 16 bytes (flags uint32, position
//     uint32, key size uint32, value size uint32); flag 1 marks a nested
//     bucket, whose value is its root page uint64 and sequence uint64,
//     followed, when the root page is 0, by the bucket's only page inline;
//   - freelist page: count page ids of 8 bytes; a count of 0xFFFF means
//     the real count is the first uint64 and the ids follow it.

const (
	pageHeaderSize   = 16
	elementSize      = 16
	bucketHeaderSize = 16
	metaSize         = 64
	metaSumOffset    = 56
	flagBranch       = 0x01
	flagLeaf         = 0x02
	flagFreelist     = 0x10
	flagBucket       = 0x01
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	noFreelist       = ^uint64(0)
	maxWalkDepth     = 64
)

var ne = binary.NativeEndian

// meta is a decoded meta page.
type meta struct {
	pageSize            uint32
	root, freelist, hwm uint64
	txid                uint64
	problem             string // why the page is not a valid meta page; "" when it is
	magicOK             bool   // the page has bbolt's magic number
}

// readMeta decodes the meta page at offset (one page header and a meta).
func readMeta(f io.ReaderAt, offset int64) meta {
	var m meta
	var b [pageHeaderSize + metaSize]byte
	if n, err := f.ReadAt(b[:], offset); n < len(b) {
		m.problem = fmt.Sprintf("cannot be read (%v)", err)
		return m
	}
	d := b[pageHeaderSize:]
	magic, version := ne.Uint32(d[0:]), ne.Uint32(d[4:])
	m.pageSize = ne.Uint32(d[8:])
	m.root, m.freelist, m.hwm, m.txid = ne.Uint64(d[16:]), ne.Uint64(d[32:]), ne.Uint64(d[40:]), ne.Uint64(d[48:])
	h := fnv.New64a()
	h.Write(d[:metaSumOffset])
	m.magicOK = magic == boltMagic
	switch {
	case !m.magicOK:
		m.problem = "is not bbolt's (wrong magic number)"
	case version != boltVersion:
		m.problem = fmt.Sprintf("has format version %d, not %d", version, boltVersion)
	case ne.Uint64(d[metaSumOffset:]) != h.Sum64():
		m.problem = "fails its checksum"
	case m.pageSize < 512 || m.pageSize > 1<<24 || m.pageSize&(m.pageSize-1) != 0:
		m.problem = fmt.Sprintf("gives a page size of %d", m.pageSize)
	}
	return m
}

// header is what the meta pages say about a file.
type header struct {
	size     int64
	pageSize int
	meta     meta    // the meta page bbolt uses
	metas    [2]meta // pages 0 and 1
}

// readHeader reads a file's meta pages and checks what every open relies
// on: the file is a bbolt database, one meta page is valid, and the pages
// below the high-water mark are all in the file. Its errors are
// DamageErrors without a path.
func readHeader(f *os.File) (*header, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	h := &header{size: st.Size()}
	if !st.Mode().IsRegular() {
		return nil, &DamageError{Problem: fmt.Sprintf("%s, not a regular file: not a policyevolve store", infile.Kind(st.Mode())), Err: ErrNotStore}
	}
	if h.size == 0 {
		return nil, &DamageError{Problem: "the file is empty (0 bytes): not a policyevolve store (remove it to start a new store there)", Err: ErrNotStore}
	}
	h.metas[0] = readMeta(f, 0)
	if h.metas[0].problem == "" {
		h.pageSize = int(h.metas[0].pageSize)
		h.metas[1] = readMeta(f, int64(h.pageSize))
	} else {
		// Meta page 0 is unreadable: find page 1 (and so the page size)
		// at each page size bbolt may have used.
		h.metas[1] = meta{problem: "was not found"}
		for ps := int64(1024); ps <= 1<<24 && ps < h.size; ps <<= 1 {
			if m := readMeta(f, ps); m.problem == "" && int64(m.pageSize) == ps {
				h.metas[1], h.pageSize = m, int(ps)
				break
			}
		}
	}
	m0, m1 := h.metas[0], h.metas[1]
	switch {
	case m0.problem == "" && m1.problem == "":
		h.meta = m0
		if m1.txid > m0.txid {
			h.meta = m1
		}
	case m0.problem == "":
		h.meta = m0
	case m1.problem == "":
		h.meta = m1
	case !m0.magicOK && !m1.magicOK:
		return nil, &DamageError{Problem: "not a policyevolve store: not a bbolt database (neither meta page has bbolt's magic number)", Err: ErrNotStore}
	default:
		return nil, &DamageError{Problem: fmt.Sprintf("not a policyevolve store: both meta pages are damaged (page 0 %s, page 1 %s)", m0.problem, m1.problem), Err: ErrNotStore}
	}
	m, ps := h.meta, uint64(h.pageSize)
	switch {
	case m.hwm < 2 || m.hwm > uint64(1)<<50/ps:
		return nil, damaged("the meta page gives %d pages in use", m.hwm)
	case uint64(h.size) < m.hwm*ps:
		return nil, damaged("the file is truncated: it has %d bytes, its %d pages need %d", h.size, m.hwm, m.hwm*ps)
	case m.root < 2 || m.root >= m.hwm:
		return nil, damaged("the root bucket's page %d is not among the pages in use (2 to %d)", m.root, m.hwm-1)
	case m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.hwm):
		return nil, damaged("the freelist's page %d is not among the pages in use (2 to %d)", m.freelist, m.hwm-1)
	case m.freelist != noFreelist:
		// bbolt reads the freelist when it opens a store for writing,
		// following its count.
		if problem := freelistHeader(f, m.freelist, ps, m.hwm); problem != "" {
			return nil, damaged("the freelist: %s", problem)
		}
	}
	return h, nil
}

// freelistHeader checks the header of the freelist page id: its id, type,
// extent and count; "" when they are sound.
func freelistHeader(f io.ReaderAt, id, ps, hwm uint64) string {
	var b [pageHeaderSize + 8]byte
	if _, err := f.ReadAt(b[:], int64(id*ps)); err != nil {
		return fmt.Sprintf("page %d cannot be read: %v", id, err)
	}
	flags, count, overflow := ne.Uint16(b[8:]), uint64(ne.Uint16(b[10:])), uint64(ne.Uint32(b[12:]))
	start := uint64(pageHeaderSize)
	if count == 0xFFFF {
		count, start = ne.Uint64(b[pageHeaderSize:]), start+8
	}
	switch room := ((1+overflow)*ps - start) / 8; {
	case ne.Uint64(b[0:]) != id:
		return fmt.Sprintf("page %d says it is page %d", id, ne.Uint64(b[0:]))
	case flags != flagFreelist:
		return fmt.Sprintf("page %d has type %#x, not a freelist's", id, flags)
	case id+overflow >= hwm:
		return fmt.Sprintf("page %d runs %d pages past the pages in use", id, id+overflow-hwm+1)
	case count > room:
		return fmt.Sprintf("page %d holds %d page ids, room for %d", id, count, room)
	}
	return ""
}

// precheck is readHeader for an open file, its result dropped.
func precheck(f *os.File, readOnly bool) error {
	h, err := readHeader(f)
	if err != nil || readOnly {
		return err
	}
	if p := advanceProblem(h); p != "" {
		return damaged("%s", p)
	}
	return nil
}

// walkFile checks every page of the bbolt file at path: the meta pages,
// then the tree of buckets from the root (page types, elements within
// their pages, keys in order and within their parent's bounds, no page
// reached twice), then the freelist, and that every page in use is either
// reached or free. It returns the problems found (at most maxProblems);
// its error is only for a file it cannot read at all.
func walkFile(path string) ([]string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a named pipe must not block
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", path, infile.Kind(st.Mode()))
	}
	w := &walker{f: f}
	err = guard(func() error { w.walk(); return nil })
	var p *panicked
	if errors.As(err, &p) { // a bug of the walker: say so rather than crash
		w.add("the page check stopped: %v", p.value)
	}
	return w.problems, nil
}

// walker holds the state of walkFile.
type walker struct {
	f        *os.File
	h        *header
	state    []uint8 // per page below the high-water mark: 0, reached, free
	problems []string
	more     int // problems beyond maxProblems
}

const (
	pageReached = 1 << iota
	pageFree
)

func (w *walker) add(format string, args ...any) {
	if len(w.problems) >= maxProblems {
		w.more++
		return
	}
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

func (w *walker) walk() {
	h, err := readHeader(w.f)
	if err != nil {
		var d *DamageError
		if !errors.As(err, &d) {
			w.add("%v", err)
			return
		}
		w.add("%s", d.Problem)
		if h = w.salvageHeader(); h == nil {
			return
		}
	}
	w.h = h
	for i, m := range h.metas {
		if m.problem != "" {
			w.add("meta page %d %s: the store reads as of transaction %d", i, m.problem, h.meta.txid)
		}
	}
	pages := h.meta.hwm
	if avail := uint64(h.size) / uint64(h.pageSize); avail < pages {
		pages = avail
	}
	if pages < 2 {
		w.add("the file is truncated: it has %d bytes, less than its two meta pages", h.size)
		return
	}
	w.state = make([]uint8, pages)
	w.state[0], w.state[1] = pageReached, pageReached
	if h.meta.freelist != noFreelist {
		w.freelist(h.meta.freelist)
	}
	w.tree(h.meta.root, nil, nil, "the root bucket", 0)
	if h.meta.freelist == noFreelist {
		return // no freelist to account for the pages not reached
	}
	var lost []uint64
	for id := uint64(2); id < uint64(len(w.state)); id++ {
		if w.state[id] == 0 {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		w.add("%d pages are neither in use nor free (%s)", len(lost), pageList(lost))
	}
	if w.more > 0 {
		w.problems = append(w.problems, fmt.Sprintf("… %d more problems not listed", w.more))
	}
}

// salvageHeader is the header of a file readHeader refused, when its
// pages can still be walked (a truncated file: the pages that are there).
func (w *walker) salvageHeader() *header {
	st, err := w.f.Stat()
	if err != nil || st.Size() == 0 {
		return nil
	}
	h := &header{size: st.Size()}
	h.metas[0] = readMeta(w.f, 0)
	if h.metas[0].problem != "" {
		return nil
	}
	h.pageSize = int(h.metas[0].pageSize)
	h.metas[1] = readMeta(w.f, int64(h.pageSize))
	h.meta = h.metas[0]
	if h.metas[1].problem == "" && h.metas[1].txid > h.meta.txid {
		h.meta = h.metas[1]
	}
	m := h.meta
	if m.hwm < 2 || m.hwm > uint64(1)<<50/uint64(h.pageSize) || m.root < 2 || m.root >= m.hwm ||
		(m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.hwm)) {
		return nil
	}
	return h
}

// page reads page id and its overflow pages, marking them with mark; nil
// (and a problem) when it cannot.
func (w *walker) page(id uint64, what string, mark uint8) []byte {
	n := uint64(len(w.state))
	if id < 2 || id >= n {
		if id < w.h.meta.hwm {
			w.add("%s: page %d is past the end of the file", what, id)
		} else {
			w.add("%s: page %d is not among the pages in use (2 to %d)", what, id, w.h.meta.hwm-1)
		}
		return nil
	}
	ps := int64(w.h.pageSize)
	var hd [pageHeaderSize]byte
	if _, err := w.f.ReadAt(hd[:], int64(id)*ps); err != nil {
		w.add("%s: page %d cannot be read: %v", what, id, err)
		return nil
	}
	if got := ne.Uint64(hd[0:]); got != id {
		w.add("%s: page %d says it is page %d", what, id, got)
		return nil
	}
	overflow := uint64(ne.Uint32(hd[12:]))
	if id+overflow >= n {
		w.add("%s: page %d runs %d pages past the pages in the file", what, id, id+overflow-n+1)
		return nil
	}
	for p := id; p <= id+overflow; p++ {
		switch {
		case w.state[p]&pageReached != 0:
			w.add("%s: page %d is reached twice", what, p)
			return nil
		case w.state[p]&pageFree != 0 && mark == pageReached:
			w.add("%s: page %d is in use and free at once", what, p)
		}
		w.state[p] |= mark
	}
	buf := make([]byte, (1+overflow)*uint64(ps))
	if _, err := w.f.ReadAt(buf, int64(id)*ps); err != nil {
		w.add("%s: page %d cannot be read: %v", what, id, err)
		return nil
	}
	return buf
}

// freelist reads the freelist page and marks the pages it frees.
func (w *walker) freelist(id uint64) {
	p := w.page(id, "the freelist", pageReached)
	if p == nil {
		return
	}
	if flags := ne.Uint16(p[8:]); flags != flagFreelist {
		w.add("the freelist: page %d has type %#x, not a freelist's", id, flags)
		return
	}
	start, count := uint64(pageHeaderSize), uint64(ne.Uint16(p[10:]))
	if count == 0xFFFF {
		count = ne.Uint64(p[start:])
		start += 8
	}
	if count > (uint64(len(p))-start)/8 {
		w.add("the freelist: page %d holds %d page ids, room for %d", id, count, (uint64(len(p))-start)/8)
		return
	}
	var bad []uint64
	for i := range count {
		fid := ne.Uint64(p[start+8*i:])
		switch {
		case fid < 2 || fid >= uint64(len(w.state)):
			bad = append(bad, fid)
		case w.state[fid]&pageFree != 0:
			w.add("the freelist: page %d is freed twice", fid)
		default:
			if w.state[fid]&pageReached != 0 {
				w.add("the freelist: page %d is in use and free at once", fid)
			}
			w.state[fid] |= pageFree
		}
	}
	if len(bad) > 0 {
		w.add("the freelist: %d ids are not pages of the file (%s)", len(bad), pageList(bad))
	}
}

// tree walks the bucket or subtree whose root is page id; its keys must
// lie in [lo, hi) (nil: unbounded).
func (w *walker) tree(id uint64, lo, hi []byte, what string, depth int) {
	if depth > maxWalkDepth {
		w.add("%s: page %d is nested %d levels deep", what, id, depth)
		return
	}
	p := w.page(id, what, pageReached)
	if p == nil {
		return
	}
	w.node(p, fmt.Sprintf("page %d", id), lo, hi, what, depth)
}

// node checks one page's elements (p starts with its header: a page of
// the file, or a bucket's page inline in its value) and walks on.
func (w *walker) node(p []byte, name string, lo, hi []byte, what string, depth int) {
	flags, count := ne.Uint16(p[8:]), int(ne.Uint16(p[10:]))
	if flags != flagBranch && flags != flagLeaf {
		w.add("%s: %s has type %#x, neither branch nor leaf", what, name, flags)
		return
	}
	if pageHeaderSize+count*elementSize > len(p) {
		w.add("%s: %s claims %d elements, room for %d", what, name, count, (len(p)-pageHeaderSize)/elementSize)
		return
	}
	var prev []byte
	type child struct {
		id     uint64
		lo, hi []byte
	}
	var children []child
	for i := range count {
		e := pageHeaderSize + i*elementSize
		var pos, ksize, vsize uint64
		if flags == flagBranch {
			pos, ksize = uint64(ne.Uint32(p[e:])), uint64(ne.Uint32(p[e+4:]))
		} else {
			pos, ksize, vsize = uint64(ne.Uint32(p[e+4:])), uint64(ne.Uint32(p[e+8:])), uint64(ne.Uint32(p[e+12:]))
		}
		if uint64(e)+pos+ksize+vsize > uint64(len(p)) {
			w.add("%s: %s, element %d lies past the end of its page", what, name, i)
			return
		}
		key := p[uint64(e)+pos : uint64(e)+pos+ksize]
		switch {
		case prev != nil && bytes.Compare(key, prev) <= 0:
			w.add("%s: %s, key %d (%q) is not after the key before it", what, name, i, clip(key))
			return
		case lo != nil && bytes.Compare(key, lo) < 0, hi != nil && bytes.Compare(key, hi) >= 0:
			w.add("%s: %s, key %d (%q) is outside its parent's range", what, name, i, clip(key))
			return
		}
		prev = key
		if flags == flagBranch {
			c := child{id: ne.Uint64(p[e+8:]), lo: key, hi: hi}
			if len(children) > 0 {
				children[len(children)-1].hi = key
			}
			children = append(children, c)
			continue
		}
		if ne.Uint32(p[e:])&flagBucket == 0 {
			continue
		}
		value := p[uint64(e)+pos+ksize : uint64(e)+pos+ksize+vsize]
		inner := fmt.Sprintf("bucket %q", clip(key))
		if len(value) < bucketHeaderSize {
			w.add("%s: %s, %s has a %d-byte header", what, name, inner, len(value))
			continue
		}
		if root := ne.Uint64(value); root != 0 {
			w.tree(root, nil, nil, inner, depth+1)
			continue
		}
		inline := value[bucketHeaderSize:]
		if len(inline) < pageHeaderSize || ne.Uint16(inline[8:]) != flagLeaf {
			w.add("%s: %s, %s's inline page is not a leaf", what, name, inner)
			continue
		}
		w.node(inline, "its inline page", nil, nil, inner, depth+1)
	}
	if flags == flagBranch && count == 0 {
		w.add("%s: %s is a branch without elements", what, name)
	}
	for _, c := range children {
		w.tree(c.id, c.lo, c.hi, what, depth+1)
	}
}

// clip shortens a key for a message.
func clip(key []byte) []byte {
	if len(key) > 40 {
		return key[:40]
	}
	return key
}

// pageList names the first few pages of ids.
func pageList(ids []uint64) string {
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	s := ""
	for i, id := range ids {
		if i == 8 {
			return s + ", …"
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(id)
	}
	return s
}
