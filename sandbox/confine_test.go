package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"policyevolve/envs/ssd/worker"
)

// The probe (sandbox/internal/probe) is a worker that tries what an
// escaped policy would try. These tests start it the way the sandbox
// starts policy workers, with one confinement layer at a time, and check
// that each layer alone stops what it is meant to stop: remove a layer's
// code and its test fails.

var (
	probeMu    sync.Mutex
	probeBuilt = map[bool]string{}
)

// probeBinary builds the probe without cgo (as native workers are built:
// syscall.AllThreadsSyscall reaches every thread) or with cgo (as
// policyevolve, the interpreting worker, is: psx does).
func probeBinary(t *testing.T, cgo bool) string {
	t.Helper()
	probeMu.Lock()
	defer probeMu.Unlock()
	if p := probeBuilt[cgo]; p != "" {
		return p
	}
	if cgo {
		if _, err := exec.LookPath("gcc"); err != nil {
			t.Skip("no C compiler: cannot build the cgo probe")
		}
	}
	out := filepath.Join(testCache, fmt.Sprintf("probe-cgo%v", cgo))
	cmd := exec.Command("go", "build", "-o", out, "./internal/probe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{true: "1", false: "0"}[cgo])
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the probe: %v\n%s", err, b)
	}
	// Workers may run as another user: let them execute it.
	os.Chmod(out, 0o755)
	probeBuilt[cgo] = out
	return out
}

// probeResult is what one run of the probe saw.
type probeResult struct {
	Outcomes    map[string]string
	Confinement string
	status      string // /proc/PID/status while it waited
	host        worker.Confinement
}

// runProbe starts the probe with every layer but those in off.
func runProbe(t *testing.T, cgo bool, off worker.Layer) *probeResult {
	t.Helper()
	exe := probeBinary(t, cgo)
	sb := newSandbox(t, Native, func(c *Config) { c.Unconfined = off })
	lim := sb.limits(Native)
	lim.Early = !cgo // the compiled worker confines itself at init, the interpreting one later
	// A directory the worker may write, reachable by another user.
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o777)
	file := filepath.Join(dir, "readable")
	os.WriteFile(file, []byte("x"), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	// A process to trace: never the test itself.
	target := exec.Command("sleep", "600")
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { target.Process.Kill(); target.Wait() }()
	env := []string{"PROBE_FILE=" + file, "PROBE_DIR=" + dir, "PROBE_ADDR=" + ln.Addr().String(),
		fmt.Sprintf("PROBE_PID=%d", target.Process.Pid)}
	w, err := sb.launchFile(exe, env, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		w.req.Close()
		w.reap(10 * time.Second)
		w.rep.Close()
	}()
	w.rep.SetReadDeadline(time.Now().Add(2 * time.Minute))
	var res probeResult
	line, err := bufio.NewReader(w.rep).ReadBytes('\n')
	if err != nil {
		w.kill("test")
		w.reap(time.Second)
		t.Fatalf("probe: %v; it printed:\n%s", err, w.out.String())
	}
	if err := json.Unmarshal(line, &res); err != nil {
		t.Fatalf("probe: %v: %s", err, line)
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", w.cmd.Process.Pid))
	res.status = string(b)
	res.host = sb.ns.status(off)
	return &res
}

func statusField(status, key string) string {
	for _, line := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == key {
			return strings.Fields(v)[0]
		}
	}
	return ""
}

// layerActive tells whether the probe reported a layer active; a layer the
// kernel lacks is logged and its checks skipped.
func layerActive(t *testing.T, r *probeResult, l worker.Layer) bool {
	t.Helper()
	if strings.Contains(r.Confinement, "not active: ") && strings.Contains(strings.SplitN(r.Confinement, "not active: ", 2)[1], l.String()) {
		t.Logf("%s is not available here: %s", l, r.Confinement)
		return false
	}
	return true
}

func landlockABI(r *probeResult) int {
	var abi int
	if i := strings.Index(r.Confinement, "landlock (ABI "); i >= 0 {
		fmt.Sscanf(r.Confinement[i+len("landlock (ABI "):], "%d", &abi)
	}
	return abi
}

func wantOutcomes(t *testing.T, r *probeResult, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := r.Outcomes[k]; !strings.Contains(got, v) {
			t.Errorf("%s: got %q, want %q (all: %v)", k, got, v, r.Outcomes)
		}
	}
}

func TestConfinementLayers(t *testing.T) {
	if raceEnabled {
		t.Skip("the probe is built without the race detector; the layers do not depend on it")
	}
	for _, cgo := range []bool{false, true} {
		t.Run(fmt.Sprintf("cgo=%v", cgo), func(t *testing.T) {
			t.Run("none", func(t *testing.T) {
				// Without confinement every attempt succeeds (but writing:
				// RLIMIT_FSIZE, a resource limit every worker has, lets it
				// create the file but not write to it): the failures below
				// are the layers' doing.
				r := runProbe(t, cgo, worker.AllLayers)
				for _, k := range []string{"open", "exec", "kill", "fork", "files", "procs", "dial", "ptrace"} {
					if r.Outcomes[k] != "ok" {
						t.Errorf("%s unconfined: %q", k, r.Outcomes[k])
					}
				}
				wantOutcomes(t, r, map[string]string{"write": "file too large"})
			})
			t.Run("seccomp", func(t *testing.T) {
				r := runProbe(t, cgo, worker.AllLayers&^worker.Seccomp)
				if !layerActive(t, r, worker.Seccomp) {
					return
				}
				wantOutcomes(t, r, map[string]string{"open": "EPERM", "write": "EPERM", "dial": "EPERM", "exec": "EPERM",
					"kill": "EPERM", "ptrace": "EPERM", "fork": "EPERM", "files": "EPERM", "procs": "EPERM"})
				if got := statusField(r.status, "Seccomp"); got != "2" {
					t.Errorf("Seccomp: %q in /proc/PID/status, want 2", got)
				}
			})
			t.Run("landlock", func(t *testing.T) {
				r := runProbe(t, cgo, worker.AllLayers&^worker.Landlock)
				if !layerActive(t, r, worker.Landlock) {
					return
				}
				want := map[string]string{"open": "EACCES", "write": "EACCES", "exec": "EACCES", "fork": "EACCES", "files": "EACCES"}
				if landlockABI(r) >= 4 {
					want["dial"] = "EACCES"
				}
				if landlockABI(r) >= 6 {
					want["kill"] = "EPERM"
				}
				wantOutcomes(t, r, want)
			})
			t.Run("no_new_privs", func(t *testing.T) {
				r := runProbe(t, cgo, worker.AllLayers&^worker.NoNewPrivs)
				if got := statusField(r.status, "NoNewPrivs"); got != "1" {
					t.Errorf("NoNewPrivs: %q in /proc/PID/status, want 1", got)
				}
			})
			t.Run("nofile", func(t *testing.T) {
				r := runProbe(t, cgo, worker.AllLayers&^worker.NoFile)
				wantOutcomes(t, r, map[string]string{"open": "ok", "files": "EMFILE"})
			})
			t.Run("nproc", func(t *testing.T) {
				// The kernel exempts root: the worker needs its user
				// namespace to be anyone else.
				r := runProbe(t, cgo, worker.AllLayers&^(worker.NProc|worker.UserNS))
				if !layerActive(t, r, worker.NProc) {
					return
				}
				wantOutcomes(t, r, map[string]string{"fork": "ok", "procs": "EAGAIN"})
			})
			t.Run("netns", func(t *testing.T) {
				r := runProbe(t, cgo, worker.AllLayers&^worker.NetNS)
				if r.host.Active()&worker.NetNS == 0 {
					t.Logf("no network namespace here: %v", r.host)
					return
				}
				wantOutcomes(t, r, map[string]string{"dial": "ENETUNREACH", "open": "ok"})
			})
			t.Run("userns", func(t *testing.T) {
				r := runProbe(t, cgo, worker.AllLayers&^worker.UserNS)
				if r.host.Active()&worker.UserNS == 0 {
					t.Logf("no user namespace here: %v", r.host)
					return
				}
				if got := statusField(r.status, "Uid"); got != fmt.Sprint(workerUID()) {
					t.Errorf("the worker runs as host uid %s, want %d", got, workerUID())
				}
				if os.Getuid() == 0 {
					// As nobody, it may not signal or trace root's processes.
					wantOutcomes(t, r, map[string]string{"kill": "EPERM", "ptrace": "EPERM"})
				}
			})
			t.Run("all", func(t *testing.T) {
				r := runProbe(t, cgo, 0)
				for k, v := range r.Outcomes {
					if v != "EPERM" && v != "EACCES" && !strings.Contains(v, "EPERM") && !strings.Contains(v, "EACCES") {
						t.Errorf("%s: %q, want a permission error", k, v)
					}
				}
			})
		})
	}
}

// TestSeccompKillIsReported: a worker the seccomp filter kills (a system
// call through another architecture's convention) is reported as such.
func TestSeccompKillIsReported(t *testing.T) {
	if raceEnabled {
		t.Skip("the probe is built without the race detector")
	}
	exe := probeBinary(t, false)
	sb := newSandbox(t, Native)
	w, err := sb.launchFile(exe, []string{"PROBE_CRASH=1"}, sb.limits(Native))
	if err != nil {
		t.Fatal(err)
	}
	pe, err := w.death(0)
	if err != nil {
		t.Fatal(err)
	}
	if pe.Kind != ErrCrashed || !strings.Contains(pe.Detail, "seccomp") {
		t.Fatalf("got %v: %s", pe.Kind, pe.Detail)
	}
}
