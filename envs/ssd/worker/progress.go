package worker

import (
	"encoding/binary"
	"sync/atomic"
)

// Where a worker is. A worker that dies (out of memory, a stack overflow,
// its CPU limit, the output limit) cannot say at which step; self-play
// reports its steps only in chunks. So the host shares a page of memory
// with every worker it starts (file descriptor ProgressFD, a memfd; see
// Limits.Progress), in which the worker notes the step and the agent it
// is playing before the policy runs: plain stores to memory, no system
// call. After a death the host reads them.
//
// The page starts with two uint64 words in the machine's byte order (host
// and worker run on one machine): step+2 (0: nothing played since the
// host cleared the page; 1: re-initialising the policy before the
// episode), and agent+1 (0: no agent).
const (
	// ProgressFD is the worker's descriptor of the progress page, and
	// ExeFD the one through which the host passes the executable to run
	// (closed when the worker re-executes itself under its limits).
	ProgressFD = 5
	ExeFD      = 6
	// ProgressSize is the size of the progress page.
	ProgressSize = 4096
)

// progress is the worker's view of the page; the zero value notes
// nothing.
type progress struct{ words *[2]uint64 }

// at notes that the worker plays step (-1: re-initialising) for agent
// (-1: none).
func (p progress) at(step, agent int) {
	if p.words != nil {
		atomic.StoreUint64(&p.words[0], uint64(step+2))
		atomic.StoreUint64(&p.words[1], uint64(agent+1))
	}
}

// DecodeProgress reads a progress page's first 16 bytes, in this
// machine's byte order: the step (-1: re-initialising) and agent (-1:
// none) the worker noted last, and false when it noted nothing.
func DecodeProgress(b []byte) (step, agent int, ok bool) {
	if len(b) < 16 {
		return 0, 0, false
	}
	s, a := binary.NativeEndian.Uint64(b[:8]), binary.NativeEndian.Uint64(b[8:16])
	if s == 0 {
		return 0, 0, false
	}
	return int(s) - 2, int(a) - 1, true
}
