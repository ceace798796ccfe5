package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// toolCommand is the command that runs the go command with args in dir,
// under lim: through this program as launcher (see envTool). The
// launcher leads a process group of its own, holding the go command, the
// compiler and the linker; it takes the whole group down when the host
// dies (the kernel sends it SIGTERM then, even on kill -9 of the host),
// and the host kills the group when the build is cancelled.
func toolCommand(ctx context.Context, lim toolLimits, goCmd string, env []string, args ...string) *exec.Cmd {
	if lim == (toolLimits{}) {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Env = env
		return cmd
	}
	// /proc/self/exe, opened by the child after the fork, is this program.
	cmd := exec.CommandContext(ctx, "/proc/self/exe", append([]string{goCmd}, args...)...)
	cmd.Args[0] = "policyevolve-build-limits"
	cmd.Env = append(env, envTool+"="+lim.String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}

// runTool is the launcher: it sets the limits spec describes, runs its
// arguments as a child without envTool in the environment (the limits
// are inherited), and exits as the child did. When it is told to stop
// (SIGTERM, SIGINT, SIGHUP: the host died or gave up) it kills its whole
// process group, itself included: the go command leaves its compiler and
// linker running when it is killed alone (they once ran on for ~40 s
// after the host's kill -9).
func runTool(spec string) int {
	lim, err := parseToolLimits(spec)
	if err == nil && len(os.Args) < 2 {
		err = fmt.Errorf("no command")
	}
	set := func(res int, v uint64) {
		if err == nil {
			err = syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v})
		}
	}
	set(syscall.RLIMIT_CORE, 0)
	if lim.data > 0 {
		set(syscall.RLIMIT_DATA, uint64(lim.data))
	}
	if lim.cpu > 0 {
		set(syscall.RLIMIT_CPU, uint64(lim.cpu))
	}
	if lim.fsize > 0 {
		set(syscall.RLIMIT_FSIZE, uint64(lim.fsize))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "policyevolve: cannot run %q under limits %s: %v\n", os.Args[1:], spec, err)
		return 125
	}
	// Told to stop before the command starts, the launcher ends by the
	// signal's default action; from here on, it takes the group down.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// A file too large fails the write (EFBIG) instead of killing the
	// writer, so the tool says which file.
	signal.Ignore(syscall.SIGXFSZ)
	if os.Getppid() == 1 {
		return 125 // the host died before the signal could be set up
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envTool+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "policyevolve: cannot run %q: %v\n", os.Args[1:], err)
		return 125
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-stop:
		syscall.Kill(0, syscall.SIGKILL) // the whole group, this launcher included
		return 1
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				fmt.Fprintf(os.Stderr, "%s: signal: %v\n", filepath.Base(os.Args[1]), ws.Signal())
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "policyevolve: %q: %v\n", os.Args[1:], err)
			return 125
		}
		return 0
	}
}

// lockBuildDir takes a lock on a build directory for as long as the
// build runs (its descriptor is closed on exec: no tool inherits it),
// so that removeStaleBuilds can tell a live build from one whose process
// was killed. The returned function releases it.
func lockBuildDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// removeStaleBuilds removes the build directories in cache whose build
// is over — their process was killed before it could remove them (a
// lock no one holds) — and returns how many.
func removeStaleBuilds(cache string) int {
	ents, err := os.ReadDir(cache)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "build-") {
			continue
		}
		dir := filepath.Join(cache, e.Name())
		f, err := os.Open(filepath.Join(dir, ".lock"))
		if errors.Is(err, fs.ErrNotExist) {
			// Created an instant ago, or by a version without locks: left
			// alone unless it is old.
			if st, err := os.Stat(dir); err != nil || st.ModTime().After(staleBefore()) {
				continue
			}
		} else if err != nil {
			continue
		} else {
			locked := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
			f.Close()
			if locked {
				continue // a build runs there
			}
		}
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}
