package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// streamSniff watches the bytes of a streamed answer: whether any of its
// lines was a readable event (a server-sent event "data: {…}" or
// "data: [DONE]", or a line of JSON as Ollama streams), and how it began.
// langchaingo skips what it cannot read in a stream, so a reply that is
// no stream at all (an HTML error page, a proxy's message) would
// otherwise come out as an empty answer.
type streamSniff struct {
	mu     sync.Mutex
	head   []byte // the first bytes, for the error message
	line   []byte // the line being read
	events int    // readable events seen
}

const (
	sniffHead = 200
	// sniffLine bounds the line kept: a longer one counts as an event
	// (no garbage reply is a single line this long that ends well).
	sniffLine = 1 << 20
)

func (s *streamSniff) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := sniffHead - len(s.head); n > 0 {
		s.head = append(s.head, p[:min(n, len(p))]...)
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(s.line) < sniffLine {
				s.line = append(s.line, p[:min(len(p), sniffLine-len(s.line))]...)
			}
			return
		}
		if len(s.line) < sniffLine {
			s.line = append(s.line, p[:min(i, sniffLine-len(s.line))]...)
		}
		s.endLine()
		p = p[i+1:]
	}
}

// endLine judges the line read.
func (s *streamSniff) endLine() {
	l := bytes.TrimSpace(s.line)
	s.line = s.line[:0]
	if data, ok := bytes.CutPrefix(l, []byte("data:")); ok {
		l = bytes.TrimSpace(data)
		if string(l) == "[DONE]" {
			s.events++
			return
		}
	}
	if len(l) >= sniffLine-1 || len(l) > 0 && json.Valid(l) {
		s.events++
	}
}

// readable reports whether the stream held a readable event (a last line
// without its newline included), and how it began.
func (s *streamSniff) readable() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.line) > 0 {
		s.endLine()
	}
	return s.events > 0, string(s.head)
}

// sniffBody shows what is read of a body to a streamSniff.
type sniffBody struct {
	io.ReadCloser
	sn *streamSniff
}

func (b *sniffBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.sn.write(p[:n])
	return n, err
}
