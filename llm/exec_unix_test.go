//go:build unix

package llm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) == 0 || f[0] != "Z"
}

// gone waits (generously: a loaded machine) for pid to end.
func gone(t *testing.T, pid int) bool {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

// childPID waits for the command to write its child's pid.
func childPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(path)
		if s := strings.TrimSpace(string(data)); strings.HasSuffix(string(data), "\n") {
			if pid, err := strconv.Atoi(s); err == nil {
				return pid
			}
		}
	}
	t.Fatal("the command never wrote its child's pid")
	return 0
}

// TestExecKillsItsProcessGroup: an exec: command that starts a child and
// runs over its time, or whose caller cancels, is killed with its child:
// nothing is left behind. So is a child it leaves running when it exits.
func TestExecKillsItsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		command string
		timeout time.Duration
		cancel  bool
	}{
		{"timeout", "sleep 300 & echo $! > %s; wait", time.Second, false},
		{"cancel", "sleep 300 & echo $! > %s; wait", time.Hour, true},
		{"exit", "sleep 300 > /dev/null 2>&1 & echo $! > %s; echo done", time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(dir, tc.name+".pid")
			c, err := New(Config{Spec: "exec:" + strings.ReplaceAll(tc.command, "%s", pidFile), Timeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := c.Generate(ctx, req)
				errc <- err
			}()
			pid := childPID(t, pidFile)
			if tc.cancel {
				cancel()
			}
			err = <-errc
			switch tc.name {
			case "timeout":
				if !errors.Is(err, ErrTimeout) {
					t.Errorf("error %v, want ErrTimeout", err)
				}
			case "cancel":
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error %v, want context.Canceled", err)
				}
			}
			if !gone(t, pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the command's child %d outlived the call", pid)
			}
		})
	}
}
