package sandbox

import (
	"bytes"
	"fmt"
	"strings"
)

// The Go toolchain runs on a policy's source in the host's machine, and a
// few kilobytes of source can make it work exponentially: generic
// functions that each call the next at two new types double the
// compiler's instantiations per level (13 levels of a 2.5 KB policy took
// 85 s and 1.86 GB; 16 would need more than 10 GB). So every process of a
// native build (go, compile, link…) runs under limits of its own:
// Config.BuildMemory of data (RLIMIT_DATA: heap and other writable
// memory, what a compiler grows) and Config.BuildCPU of CPU time
// (RLIMIT_CPU). The go command is started through this very program
// (envTool: this package's init sets the limits and executes it), so that
// the limits hold from the first instruction and every tool the go
// command starts inherits them. A build of the policy's package that
// passes a bound refuses the policy, saying which bound; a bound passed by
// the rest of the toolchain (the standard library, built once per
// machine) is a failure of the system.

// envTool, set in a process's environment to the limits (see
// toolLimits.String), turns any binary that links this package into a
// launcher: it sets the limits and executes its arguments. The sandbox
// sets it; nothing else should.
const envTool = "POLICYEVOLVE_SANDBOX_TOOL"

// Defaults of the build bounds, with the reasons for them.
const (
	// An honest worker build needs under 300 MB per tool process, the
	// first one on a machine (which compiles the standard library)
	// included; 768 MiB keeps every process of a build, and the whole of
	// admission, under 1 GiB.
	DefaultBuildMemory = 768 << 20
	// An honest policy compiles in about a second of CPU time; the
	// largest package of the standard library in under ten.
	DefaultBuildCPU = 60
	// A worker binary is a few MiB and the largest object file of the
	// standard library tens; a policy's initialised arrays (each within
	// MaxStaticSize) are laid out in both, and twelve of them once made
	// the linker write 1.5 GB to the disk.
	DefaultBuildFileSize = 256 << 20
)

// toolLimits are the limits of each process of a build: bytes of data
// (RLIMIT_DATA), seconds of CPU time (RLIMIT_CPU) and bytes of any file
// it writes (RLIMIT_FSIZE); 0 is no limit.
type toolLimits struct{ data, cpu, fsize int64 }

func (l toolLimits) String() string {
	return fmt.Sprintf("data=%d,cpu=%d,fsize=%d", l.data, l.cpu, l.fsize)
}

func parseToolLimits(s string) (toolLimits, error) {
	var l toolLimits
	_, err := fmt.Sscanf(s, "data=%d,cpu=%d,fsize=%d", &l.data, &l.cpu, &l.fsize)
	if err != nil || l.data < 0 || l.cpu < 0 || l.fsize < 0 {
		return l, fmt.Errorf("malformed tool limits %q", s)
	}
	return l, nil
}

// toolLimits are the limits of this Sandbox's builds.
func (s *Sandbox) toolLimits() toolLimits {
	return toolLimits{data: max(s.cfg.BuildMemory, 0), cpu: max(int64(s.cfg.BuildCPU.Seconds()+0.999), 0),
		fsize: max(s.cfg.BuildFileSize, 0)}
}

// overBound explains a failed build that passed a bound, from the go
// command's output: it returns the refusal's message when the compiler or
// linker of the policy's package did, an error when another package or
// the go command itself did (the toolchain needs more than its bounds:
// the system's failure, not the policy's), and "", nil when no bound was
// passed.
func (s *Sandbox) overBound(out []byte) (string, error) {
	section, what := "", ""
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			section = strings.TrimPrefix(line, "# ")
		case strings.Contains(line, "out of memory") || strings.Contains(line, "cannot allocate memory"):
			what = fmt.Sprintf("more memory than the build's bound of %d MiB per process", s.cfg.BuildMemory>>20)
		case strings.Contains(line, "file too large") || strings.Contains(line, "file size limit exceeded"):
			what = fmt.Sprintf("a file larger than the build's bound of %d MiB (an object file or the worker binary)", s.cfg.BuildFileSize>>20)
		case strings.Contains(line, "signal: killed"):
			// "ssd/cmd/worker: …/compile: signal: killed"
			if pkg, _, ok := strings.Cut(strings.TrimPrefix(line, "go build "), ": "); ok && !strings.Contains(pkg, " ") {
				section = pkg
			}
			what = fmt.Sprintf("more CPU time than the build's bound of %v per process", s.cfg.BuildCPU)
		}
		if what != "" {
			break
		}
	}
	switch {
	case what == "":
		return "", nil
	case section != "ssd/cmd/worker":
		return "", fmt.Errorf("build worker: the Go toolchain needed %s (sandbox.Config.BuildMemory, BuildCPU):\n%s",
			what, bytes.TrimSpace(out))
	}
	if strings.HasPrefix(what, "a file") {
		return "compiling this policy needed " + what + ": its initialised arrays are laid out in the binary; " +
			"make them smaller or fill them at run time", nil
	}
	return "compiling this policy needed " + what + ": something in it makes the compiler work exponentially, " +
		"such as generic functions that each call the next at new types; write it without", nil
}
