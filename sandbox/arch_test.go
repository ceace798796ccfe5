package sandbox

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// archProbeFiles are the probes of what Go leaves to the machine: the
// defined operations, issue 27's classes, and the math package's
// functions that the native backend admits.
var archProbeFiles = []string{"defined27.go", "classes27.go", "misc3.go", "arch27.go"}

// TestArchAgreement: the native backend computes the same on amd64 and
// arm64. The probes of the defined operations (float-to-integer
// conversions out of range, NaN bits, shifts, float32 of 64-bit
// integers, the math functions allowed, floats in sums of products that
// arm64 would fuse) are built for both architectures the way the native
// backend builds a policy and must return the same values, the arm64
// build run by qemu-user. Skipped where qemu-aarch64 is not installed
// (.ci/run installs it). Without the defined operations amd64 gives
// int32(3e9) = -2147483648 and arm64 2147483647.
func TestArchAgreement(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("compares amd64 with arm64 from an amd64 host")
	}
	qemu, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		if qemu, err = exec.LookPath("qemu-aarch64-static"); err != nil {
			t.Skip("qemu-aarch64 is not installed (apt-get install qemu-user): cannot run arm64 workers here")
		}
	}
	var files []*probeFile
	for _, n := range archProbeFiles {
		files = append(files, readProbes(t, filepath.Join("testdata", "yaegi", n)))
	}
	amd := nativeProbesFor(t, files, "amd64", nil)
	arm := nativeProbesFor(t, files, "arm64", []string{qemu})
	compared := 0
	for _, pf := range files {
		for i, p := range pf.probes {
			a, b := amd[pf.path][i], arm[pf.path][i]
			compared++
			if a != b {
				t.Errorf("%s %s: amd64 gives %q, arm64 %q", filepath.Base(pf.path), p.name, a, b)
			}
		}
	}
	t.Logf("%d probes compared on amd64 and arm64", compared)
}
