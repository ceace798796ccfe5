package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"

	"policyevolve/envs/ssd/worker"
)

// Confinement every worker runs under: the layers a worker applies to
// itself (worker.WorkerLayers) with these limits, and the namespaces the
// host starts it in.
const (
	// workerNoFile leaves a worker its pipes, standard streams and the Go
	// runtime's netpoller descriptors, and a few to spare.
	workerNoFile = 16
	// workerNProc bounds the threads of a worker (the Go runtime needs a
	// handful at GOMAXPROCS=1); a worker in its own user namespace counts
	// only its own.
	workerNProc = 32
	// nobody is the host user a worker runs as, through its user
	// namespace, when the host runs as root.
	nobody = 65534
)

// nsLevel is the namespaces a worker starts in.
type nsLevel struct{ user, net bool }

// nsState is what the first worker start learned about namespaces: the
// best level that works, and why better ones did not.
type nsState struct {
	mu      sync.Mutex
	settled bool
	level   nsLevel
	userNS  string // why there is no user namespace, "" when there is
	netNS   string // why there is no network namespace
}

// levels returns the levels to try, best first: a user and a network
// namespace; a network namespace alone (root can create one without a user
// namespace); none. Layers left off by configuration are not tried.
func (n *nsState) levels(unconfined worker.Layer) []nsLevel {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.settled {
		return []nsLevel{n.level}
	}
	user, net := unconfined&worker.UserNS == 0, unconfined&worker.NetNS == 0
	var out []nsLevel
	for _, l := range []nsLevel{{user, net}, {false, net && os.Geteuid() == 0}, {}} {
		if len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
	}
	return out
}

// settle records the level that worked and why the ones before it failed.
func (n *nsState) settle(level nsLevel, failed map[nsLevel]error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.settled {
		return
	}
	n.settled, n.level = true, level
	for l, err := range failed {
		if l.user && !level.user {
			n.userNS = "the kernel refused one: " + err.Error()
		}
		if l.net && !level.net {
			n.netNS = "the kernel refused one: " + err.Error()
		}
	}
	if !level.net && n.netNS == "" {
		n.netNS = "needs a user namespace or root"
	}
	if !level.user && n.userNS == "" {
		n.userNS = "not available"
	}
}

// status reports the namespace layers.
func (n *nsState) status(unconfined worker.Layer) worker.Confinement {
	n.mu.Lock()
	defer n.mu.Unlock()
	user := worker.LayerStatus{Layer: worker.UserNS, Active: n.level.user, Detail: n.userNS}
	if user.Active {
		user.Detail = fmt.Sprintf("as host uid %d", workerUID())
	}
	net := worker.LayerStatus{Layer: worker.NetNS, Active: n.level.net, Detail: n.netNS}
	if net.Active {
		net.Detail = "no interface up"
	}
	var c worker.Confinement
	for _, s := range []worker.LayerStatus{user, net} {
		if unconfined&s.Layer != 0 {
			s = worker.LayerStatus{Layer: s.Layer, Detail: "left off by configuration"}
		}
		c = append(c, s)
	}
	return c
}

// workerUID is the host user a worker runs as in its user namespace.
func workerUID() int {
	if uid := os.Getuid(); uid != 0 {
		return uid
	}
	return nobody
}

func workerGID() int {
	if uid := os.Getuid(); uid != 0 {
		return os.Getgid()
	}
	return nobody
}

// nsRefused reports whether err is the kernel refusing a namespace.
func nsRefused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.EACCES, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// recordConfinement keeps a worker's full confinement report and, the
// first time a layer turns out not to be active, says so on the notice
// writer.
func (s *Sandbox) recordConfinement(fromWorker worker.Confinement) worker.Confinement {
	c := append(worker.Confinement{}, fromWorker...)
	c = append(c, s.ns.status(s.cfg.Unconfined)...)
	for _, l := range (worker.WorkerLayers & s.cfg.Unconfined).Layers() {
		c = append(c, worker.LayerStatus{Layer: l, Detail: "left off by configuration"})
	}
	slices.SortFunc(c, func(a, b worker.LayerStatus) int { return int(a.Layer) - int(b.Layer) })
	s.confMu.Lock()
	defer s.confMu.Unlock()
	s.conf = c
	if !s.noticed && c.Active() != worker.AllLayers&^s.cfg.Unconfined {
		s.noticed = true
		fmt.Fprintf(s.cfg.Notice, "policyevolve: policy workers are confined with fewer layers than usual: %s\n", c)
	}
	return c
}

// Confinement reports the OS-level confinement of the last worker this
// Sandbox started: every layer, active or why not. Nil before the first
// worker has started.
func (s *Sandbox) Confinement() worker.Confinement {
	s.confMu.Lock()
	defer s.confMu.Unlock()
	return s.conf
}
