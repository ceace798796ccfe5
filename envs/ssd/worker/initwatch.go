package worker

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// The start watch. Before a worker answers its first message, policy code
// may already run: a compiled policy's package-level variables are
// initialised with the program, before main; the interpreting worker runs
// them when it loads the source. The step watchdog does not run yet, so
// this package's init starts a watch of its own when the host gave a
// limit (Limits.Init): if the process uses more CPU time than that before
// Serve sends its first reply, the watch reports a timeout to the host on
// descriptor 4 and ends the process. Serve ends the watch at its first
// reply, which is then the only one the host gets.
var startWatch struct {
	mu    sync.Mutex
	done  bool // Serve replied: the watch is over
	fired bool // the watch reported: the process is ending
}

// watchStart starts the start watch with a limit of CPU time.
func watchStart(limit time.Duration) {
	go func() {
		for {
			time.Sleep(min(max(limit/10, time.Millisecond), 20*time.Millisecond))
			used := cpuTime()
			startWatch.mu.Lock()
			if startWatch.done {
				startWatch.mu.Unlock()
				return
			}
			if used > limit {
				startWatch.fired = true
				msg := fmt.Sprintf("starting the policy (loading it and initialising its package-level variables) used %v of CPU time, more than the limit of %v",
					used.Round(time.Millisecond), limit)
				WriteFrame(os.NewFile(4, "replies"), MsgError, EncodeError(&ErrorReply{Kind: KindTimeout, Agent: -1, Step: -1, Message: msg}))
				os.Exit(ExitTimeout)
			}
			startWatch.mu.Unlock()
		}
	}()
}

// endStartWatch ends the start watch before Serve's first reply; if the
// watch has reported already, it waits for the process to end.
func endStartWatch() {
	startWatch.mu.Lock()
	if startWatch.fired {
		select {} // the watch is ending the process
	}
	startWatch.done = true
	startWatch.mu.Unlock()
}
