package worker

import (
	"fmt"
	"strings"
)

// Layer is one layer of the OS-level confinement of a worker process, under
// the language rules (validation) and the resource limits. Layers combine
// as a bit set.
type Layer uint16

const (
	// NoNewPrivs (prctl PR_SET_NO_NEW_PRIVS): nothing the worker executes
	// can gain privileges; required by the two layers below.
	NoNewPrivs Layer = 1 << iota
	// Seccomp is an allow-list of the system calls a worker needs to
	// serve episodes; any other call fails with EPERM (file opens,
	// sockets, execve, ptrace, process creation, signals to others…).
	Seccomp
	// Landlock denies all file-system access (read, write, execute), TCP
	// bind and connect (ABI 4), and signals and abstract sockets to
	// processes outside the worker (ABI 6).
	Landlock
	// NoFile caps the number of open file descriptors (RLIMIT_NOFILE).
	NoFile
	// NProc caps the number of processes and threads (RLIMIT_NPROC); the
	// kernel enforces it only for a worker that is not root, which the
	// host arranges with a user namespace.
	NProc
	// UserNS runs the worker in its own user namespace, as an unprivileged
	// user of the host (the host's own user, or nobody when the host runs
	// as root). Applied by the host when it starts the worker.
	UserNS
	// NetNS runs the worker in its own network namespace, with no
	// interface up: no network at all. Applied by the host.
	NetNS
)

// AllLayers is every layer.
const AllLayers = NoNewPrivs | Seccomp | Landlock | NoFile | NProc | UserNS | NetNS

// WorkerLayers are the layers a worker applies to itself; the others are
// applied by the host when it starts the worker.
const WorkerLayers = NoNewPrivs | Seccomp | Landlock | NoFile | NProc

var layerNames = []string{"no_new_privs", "seccomp", "landlock", "nofile", "nproc", "userns", "netns"}

// Layers lists the single layers of a set, in their fixed order.
func (l Layer) Layers() []Layer {
	var out []Layer
	for i := range layerNames {
		if b := Layer(1) << i; l&b != 0 {
			out = append(out, b)
		}
	}
	return out
}

func (l Layer) String() string {
	var names []string
	for i, n := range layerNames {
		if l&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// ParseLayers reads a set written by Layer.String ("seccomp+landlock",
// "none").
func ParseLayers(s string) (Layer, error) {
	if s == "none" {
		return 0, nil
	}
	var l Layer
	for _, n := range strings.Split(s, "+") {
		found := false
		for i, name := range layerNames {
			if n == name {
				l |= 1 << i
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown confinement layer %q", n)
		}
	}
	return l, nil
}

// LayerStatus says whether a layer is in force, and how or why not.
type LayerStatus struct {
	Layer  Layer
	Active bool
	Detail string // "ABI 6", "48 system calls"; or why it is not active
}

// Confinement is the state of every layer of a worker.
type Confinement []LayerStatus

// Active is the set of layers in force.
func (c Confinement) Active() Layer {
	var l Layer
	for _, s := range c {
		if s.Active {
			l |= s.Layer
		}
	}
	return l
}

// String lists the active layers with their details, then the others with
// the reason each is missing.
func (c Confinement) String() string {
	var on, off []string
	for _, s := range c {
		item := s.Layer.String()
		if s.Detail != "" {
			item += " (" + s.Detail + ")"
		}
		if s.Active {
			on = append(on, item)
		} else {
			off = append(off, item)
		}
	}
	out := "active: none"
	if len(on) > 0 {
		out = "active: " + strings.Join(on, ", ")
	}
	if len(off) > 0 {
		out += "; not active: " + strings.Join(off, ", ")
	}
	return out
}

func appendConfinement(e *enc, c Confinement) {
	e.u32(uint32(len(c)))
	for _, s := range c {
		e.u16(int(s.Layer))
		if s.Active {
			e.u8(1)
		} else {
			e.u8(0)
		}
		e.bytes([]byte(s.Detail))
	}
}

func readConfinement(d *dec) Confinement {
	n := d.count(7)
	c := make(Confinement, n)
	for i := range c {
		c[i] = LayerStatus{Layer: Layer(d.u16()), Active: d.u8() == 1, Detail: string(d.bytes())}
	}
	return c
}

// EncodeReady returns the payload of a Ready reply: the worker's
// confinement.
func EncodeReady(c Confinement) []byte {
	e := &enc{}
	appendConfinement(e, c)
	return e.b
}

// DecodeReady parses a Ready payload.
func DecodeReady(b []byte) (Confinement, error) {
	d := &dec{b: b}
	c := readConfinement(d)
	return c, d.done()
}
