package live

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// serveEvents streams the store's version as server-sent events: an
// event "change" whose data is the version, at once when it differs from
// ?since= and then at each change; a comment every heartbeat in between.
// The stream ends when the client goes or the server stops (Serve's
// context is done, or Close).
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	if s.streams.Add(1) > maxStreams {
		s.streams.Add(-1)
		w.Header().Set("Retry-After", "30")
		http.Error(w, fmt.Sprintf("too many open event streams (%d): close a tab", maxStreams), http.StatusServiceUnavailable)
		return
	}
	defer s.streams.Add(-1)
	since, _ := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	// A client that lost the stream tries again after this long.
	if _, err := fmt.Fprint(w, "retry: 3000\n\n"); err != nil {
		return
	}
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		v, changed := s.watch.current()
		if v != since {
			since = v
			if _, err := fmt.Fprintf(w, "event: change\ndata: %d\n\n", v); err != nil {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-changed:
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": still here\n\n"); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-s.ctx.Done(): // Close
			return
		}
	}
}
