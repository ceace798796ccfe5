package envs

import (
	"os"
	"path/filepath"
	"testing"
)

// goldenDir returns the folder of reference traces: POLICYEVOLVE_GOLDEN_DIR
// when set, else the copy kept in testdata. A missing folder fails the test:
// the golden tests are the specification and must never be skipped.
func goldenDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("POLICYEVOLVE_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("testdata", "golden")
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("golden directory: %v (set POLICYEVOLVE_GOLDEN_DIR or restore envs/testdata/golden)", err)
	}
	if !st.IsDir() {
		t.Fatalf("golden directory %s is not a directory", dir)
	}
	return dir
}
