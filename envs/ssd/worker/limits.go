package worker

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// EnvLimits names the environment variable through which the host hands a
// worker its resource limits: "as=BYTES,cpu=SECONDS,stack=BYTES". The
// limits are applied by this package's init, which runs before any policy
// code (package-level variables included) in both kinds of worker.
const EnvLimits = "POLICYEVOLVE_WORKER_LIMITS"

// Limits are a worker's resource limits; zero means no limit.
type Limits struct {
	AddressSpace int64 // bytes of virtual memory (RLIMIT_AS)
	CPUSeconds   int64 // CPU time for the whole episode (RLIMIT_CPU)
	Stack        int64 // bytes of goroutine stack (runtime/debug.SetMaxStack)
}

// String encodes l for EnvLimits.
func (l Limits) String() string {
	return fmt.Sprintf("as=%d,cpu=%d,stack=%d", l.AddressSpace, l.CPUSeconds, l.Stack)
}

// ParseLimits decodes an EnvLimits value.
func ParseLimits(s string) (Limits, error) {
	var l Limits
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
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
		// The Go runtime reserves its address space while it starts; a
		// limit set now would only make later mappings fail. So set the
		// limits and start over: the new image starts under them.
		err = setrlimits(l)
		if err == nil {
			err = reexec(append(os.Environ(), envLimited+"=1"))
		}
	}
	if err != nil {
		// Never run untrusted code without its limits.
		fmt.Fprintf(os.Stderr, "policy worker: cannot apply limits %q: %v\n", s, err)
		os.Exit(125)
	}
	if l.Stack > 0 {
		debug.SetMaxStack(int(l.Stack))
	}
}

func osArgs() []string { return os.Args }
