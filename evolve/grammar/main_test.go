package grammar

import (
	"fmt"
	"os"
	"testing"
)

// testCache holds the native workers this test run builds; it is removed
// at the end.
var testCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "policyevolve-grammar-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
