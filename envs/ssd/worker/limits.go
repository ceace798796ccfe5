package worker

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// EnvLimits names the environment variable through which the host hands a
// worker its resource limits and confinement, as Limits.String writes
// them. The limits are applied by this package's init, which runs before
// any policy code (package-level variables included) in both kinds of
// worker.
const EnvLimits = "POLICYEVOLVE_WORKER_LIMITS"

// Limits are a worker's resource limits and the confinement it applies to
// itself; zero means no limit.
type Limits struct {
	AddressSpace int64 // bytes of virtual memory (RLIMIT_AS)
	CPUSeconds   int64 // CPU time for the whole process (RLIMIT_CPU)
	Stack        int64 // bytes of goroutine stack (runtime/debug.SetMaxStack)
	NoFile       int64 // open file descriptors (RLIMIT_NOFILE), with the NoFile layer
	NProc        int64 // processes and threads (RLIMIT_NPROC), with the NProc layer
	// Confine is the set of worker layers to apply (see Layer).
	Confine Layer
	// Early applies Confine in this package's init, before the policy's
	// package-level variables are initialised: for compiled workers, whose
	// policy is part of the program. An interpreting worker confines
	// itself before it loads the policy instead (see Confine).
	Early bool
	// Progress says the host passed a progress page as ProgressFD (see
	// progress.go).
	Progress bool
	// Init bounds the CPU time the worker may use before its first reply
	// (starting, loading the policy, initialising its package-level
	// variables), microseconds; see the start watch (initwatch.go).
	Init int64
}

// String encodes l for EnvLimits.
func (l Limits) String() string {
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	return fmt.Sprintf("as=%d,cpu=%d,stack=%d,nofile=%d,nproc=%d,confine=%s,early=%d,progress=%d,init=%d",
		l.AddressSpace, l.CPUSeconds, l.Stack, l.NoFile, l.NProc, l.Confine, flag(l.Early), flag(l.Progress), l.Init)
}

// ParseLimits decodes an EnvLimits value.
func ParseLimits(s string) (Limits, error) {
	var l Limits
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if k == "confine" && ok {
			c, err := ParseLayers(v)
			if err != nil {
				return l, err
			}
			l.Confine = c
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n < 0 {
			return l, fmt.Errorf("malformed limit %q", kv)
		}
		switch k {
		case "as":
			l.AddressSpace = n
		case "cpu":
			l.CPUSeconds = n
		case "stack":
			l.Stack = n
		case "nofile":
			l.NoFile = n
		case "nproc":
			l.NProc = n
		case "early":
			l.Early = n == 1
		case "progress":
			l.Progress = n == 1
		case "init":
			l.Init = n
		default:
			return l, fmt.Errorf("unknown limit %q", k)
		}
	}
	return l, nil
}

// envLimited marks a worker that already runs under its limits.
const envLimited = "POLICYEVOLVE_WORKER_LIMITED"

func init() {
	s, ok := os.LookupEnv(EnvLimits)
	if !ok {
		return
	}
	l, err := ParseLimits(s)
	if err == nil && os.Getenv(envLimited) != "1" {
		// The host passes the executable as descriptor ExeFD (see the
		// sandbox's launch); a worker keeps only its pipes and its
		// progress page: the rest close on the re-exec below.
		err = closeFrom(ExeFD)
	}
	if err == nil && os.Getenv(envLimited) != "1" {
		// The Go runtime reserves its address space while it starts; a
		// limit set now would only make later mappings fail. So set the
		// limits and start over: the new image starts under them.
		err = limitAndReexec(l, append(os.Environ(), envLimited+"=1"))
	}
	if err != nil {
		// Never run untrusted code without its limits.
		fmt.Fprintf(os.Stderr, "policy worker: cannot apply limits %q: %v\n", s, err)
		os.Exit(125)
	}
	if l.Stack > 0 {
		debug.SetMaxStack(int(l.Stack))
	}
	limits = l
	if l.Init > 0 {
		watchStart(time.Duration(l.Init) * time.Microsecond)
	}
	if l.Early {
		confined = Confine(l, AllThreads{})
	}
}

// limits are the limits this worker runs under; confined is the
// confinement applied at init (Limits.Early), nil otherwise.
var (
	limits   Limits
	confined Confinement
)

func osArgs() []string { return os.Args }

// ConfineSelf applies the confinement the host asked for (Limits.Confine)
// now, and reports it: for an interpreting worker, before it loads the
// policy. at reaches every thread of the program (see Confine).
func ConfineSelf(at AllThreads) Confinement { return Confine(limits, at) }
