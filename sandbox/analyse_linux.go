package sandbox

import "syscall"

// analysisInChild: on Linux admission analyses sources in a bounded child
// process (see analyse).
const analysisInChild = true

// setAnalysisLimits bounds the analysing child's data (bytes) and CPU
// time (seconds; the kernel kills it there); 0 is no bound. It forbids
// core files and file writes too: the analyser writes only to its pipes.
func setAnalysisLimits(data, cpu int64) error {
	set := func(res int, v uint64) error { return syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v}) }
	if err := set(syscall.RLIMIT_CORE, 0); err != nil {
		return err
	}
	if err := set(syscall.RLIMIT_FSIZE, 0); err != nil {
		return err
	}
	if data > 0 {
		if err := set(syscall.RLIMIT_DATA, uint64(data)); err != nil {
			return err
		}
	}
	if cpu > 0 {
		return set(syscall.RLIMIT_CPU, uint64(cpu))
	}
	return nil
}
