//go:build unix

package store

import (
	"os"
	"syscall"
)

// changeTime is the file's status change time in nanoseconds (0 if the
// system does not say).
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
