// Command probe is a test-only worker: started by the sandbox's tests the
// way the sandbox starts policy workers (limits, confinement, namespaces),
// it tries what a policy that escaped the language rules would try — open
// and write files, connect to the host, run a program, signal or trace its
// parent, create processes, open many files — and reports how each attempt
// ended, so that each confinement layer can be tested on its own. It is
// never part of policyevolve.
//
// Protocol: the attempts' outcomes as JSON on file descriptor 4; then it
// waits for file descriptor 3 to close, so that the host can inspect it.
// The environment variables PROBE_FILE (an existing file), PROBE_DIR (a
// writable directory), PROBE_ADDR (a TCP address on the host) and
// PROBE_PID (a process of the host's to trace) name the targets. PROBE_CRASH=1 makes it end with a system call of another
// architecture's convention instead, which the seccomp filter kills.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"policyevolve/envs/ssd/worker"
	"policyevolve/sandbox/internal/threads"
)

// Outcome of an attempt: "ok", or the errno's name (EPERM, EACCES…), or
// the error's text when it carries no errno.
type Outcome = string

func main() {
	in, out := os.NewFile(3, "requests"), os.NewFile(4, "replies")
	lim, _ := worker.ParseLimits(os.Getenv(worker.EnvLimits))
	var conf worker.Confinement
	if !lim.Early {
		conf = worker.ConfineSelf(threads.All())
	}
	if os.Getenv("PROBE_CRASH") == "1" {
		crash()
	}
	res := map[string]Outcome{
		"open":   outcome(open1(os.Getenv("PROBE_FILE"))),
		"write":  outcome(os.WriteFile(filepath.Join(os.Getenv("PROBE_DIR"), "written"), []byte("x"), 0o644)),
		"dial":   outcome(dial(os.Getenv("PROBE_ADDR"))),
		"exec":   outcome(exec.Command("/bin/true").Run()),
		"kill":   outcome(syscall.Kill(os.Getppid(), 0)),
		"ptrace": outcome(ptrace(os.Getenv("PROBE_PID"))),
		"fork":   outcome(forkOne()),
		"files":  outcome(openMany(os.Getenv("PROBE_FILE"), 40)),
		"procs":  outcome(forkMany(60)),
	}
	report := struct {
		Outcomes    map[string]Outcome
		Confinement string
	}{res, conf.String()}
	json.NewEncoder(out).Encode(report)
	io.Copy(io.Discard, in)
}

func outcome(err error) Outcome {
	if err == nil {
		return "ok"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		for _, e := range []syscall.Errno{syscall.EPERM, syscall.EACCES, syscall.EMFILE, syscall.EAGAIN,
			syscall.ENETUNREACH, syscall.ECONNREFUSED, syscall.ENOSYS} {
			if errno == e {
				return strings.ToUpper(errnoName(e))
			}
		}
	}
	return err.Error()
}

func errnoName(e syscall.Errno) string {
	return map[syscall.Errno]string{syscall.EPERM: "eperm", syscall.EACCES: "eacces", syscall.EMFILE: "emfile",
		syscall.EAGAIN: "eagain", syscall.ENETUNREACH: "enetunreach", syscall.ECONNREFUSED: "econnrefused",
		syscall.ENOSYS: "enosys"}[e]
}

func open1(name string) error {
	f, err := os.Open(name)
	if err == nil {
		f.Close()
	}
	return err
}

// ptrace attaches to the process pid and, when that works, detaches. A
// tracer is a thread: attach, wait and detach from the same one.
func ptrace(pid string) error {
	n, err := strconv.Atoi(pid)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := syscall.PtraceAttach(n); err != nil {
		return err
	}
	var ws syscall.WaitStatus
	syscall.Wait4(n, &ws, syscall.WALL, nil)
	return syscall.PtraceDetach(n)
}

func dial(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	return err
}

// forkOne creates a process (which runs /bin/true and is reaped).
func forkOne() error {
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{})
	if err != nil {
		return err
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	return nil
}

// openMany keeps up to n files open at once.
func openMany(name string, n int) error {
	var fs []*os.File
	defer func() {
		for _, f := range fs {
			f.Close()
		}
	}()
	for range n {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("after %d files: %w", len(fs), err)
		}
		fs = append(fs, f)
	}
	return nil
}

// forkMany keeps up to n processes alive at once (sleeping), then ends them.
func forkMany(n int) error {
	var pids []int
	defer func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	}()
	for range n {
		pid, err := syscall.ForkExec("/bin/sleep", []string{"sleep", "60"}, &syscall.ProcAttr{})
		if err != nil {
			return fmt.Errorf("after %d processes: %w", len(pids), err)
		}
		pids = append(pids, pid)
	}
	return nil
}
