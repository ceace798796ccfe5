package store

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrDamaged: the store file is not sound — empty, truncated, overwritten,
// or its pages or records are inconsistent. Nothing is written to it; Check
// (the store check command) lists what is wrong.
var ErrDamaged = errors.New("the store is damaged")

// DamageError says how a store is damaged. errors.Is(err, ErrDamaged)
// holds for it, and errors.Is(err, ErrNotStore) too when the file is not a
// store at all (Err).
type DamageError struct {
	Path    string // the store's file
	Problem string // the first problem found
	Err     error  // a sentinel the problem also is (ErrNotStore), or nil
}

func (e *DamageError) Error() string {
	where := e.Path
	if where != "" {
		where += ": "
	}
	return fmt.Sprintf("%v: %s%s (store check for details)", ErrDamaged, where, e.Problem)
}

// Is makes errors.Is(err, ErrDamaged) hold.
func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

func (e *DamageError) Unwrap() error { return e.Err }

// damaged is a DamageError without its path (filled in by the Store that
// returns it, see guarded).
func damaged(format string, args ...any) error {
	return &DamageError{Problem: fmt.Sprintf(format, args...)}
}

// firstProblem is the first of problems (one or more), and how many
// more there are: what a DamageError names.
func firstProblem(problems []string) string {
	if len(problems) > 1 {
		return fmt.Sprintf("%s, and %d more problems", problems[0], len(problems)-1)
	}
	return problems[0]
}

// panicked is a panic caught by guard.
type panicked struct {
	value any
	stack []byte
}

func (p *panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// guard runs fn and returns a panic inside it as a *panicked error. A
// fault reading memory (a page of a mapped file that is not there, for
// instance) panics instead of crashing the process while fn runs.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &panicked{value: r, stack: debug.Stack()}
		}
	}()
	return fn()
}

// guarded runs op, which opens the store's file with bbolt. bbolt trusts
// the file: on damaged pages it may panic or read garbage. A panic inside
// op is therefore checked against the file's pages (Check's page walk,
// which reads the file itself and trusts nothing): when they are damaged,
// op's error is a DamageError; when they are sound, the panic was a bug of
// this program and goes on. Errors of op that are DamageErrors get the
// store's path.
func (s *Store) guarded(op func() error) error {
	err := guard(op)
	var p *panicked
	if errors.As(err, &p) {
		problems, werr := walkFile(s.path)
		if werr != nil || len(problems) == 0 {
			panic(fmt.Sprintf("%v\n\n(the store's pages are sound: a bug, not damage)\n%s", p.value, p.stack))
		}
		return &DamageError{Path: s.path, Problem: fmt.Sprintf("%s (reading it failed: %v)", firstProblem(problems), p.value)}
	}
	var d *DamageError
	if errors.As(err, &d) && d.Path == "" {
		d.Path = s.path
	}
	return err
}
