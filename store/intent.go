package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Between processes, the store is guarded by two flocks on sidecar files,
// taken before bbolt's own lock on the database (which they leave
// uncontended):
//
//   - path+".lock", the room: shared for readers, exclusive for writers,
//     held for the whole transaction;
//   - path+".gate", the entrance: exclusive, held only while entering the
//     room.
//
// bbolt's lock alone lets a stream of overlapping readers starve a writer
// forever, since shared locks never leave a gap. With the gate, a writer
// waiting for the room keeps new readers out; the ones inside finish and
// the writer goes next. Waits poll every millisecond and end with ErrBusy
// after Options.Timeout.
//
// Where the sidecars cannot be created (a read-only folder), operations go
// on with bbolt's lock alone: no one can write there anyway.
func (s *Store) enter(exclusive bool) (leave func(), err error) {
	deadline := time.Now().Add(s.opt.Timeout)
	gate, err := s.flock(".gate", true, deadline)
	if err != nil || gate == nil {
		return func() {}, err
	}
	room, err := s.flock(".lock", exclusive, deadline)
	unlock(gate)
	if err != nil {
		return nil, err
	}
	return func() { unlock(room) }, nil
}

// flock opens a sidecar and locks it; nil (and no error) when the sidecar
// cannot be created.
func (s *Store) flock(suffix string, exclusive bool, deadline time.Time) (*os.File, error) {
	name := s.path + suffix
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return nil, nil
		}
		return nil, fmt.Errorf("store lock %s: %w", name, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("store lock %s: %w", name, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: %s held by another process for over %v", ErrBusy, s.path, s.opt.Timeout)
		}
		time.Sleep(time.Millisecond)
	}
}

func unlock(f *os.File) {
	if f != nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
