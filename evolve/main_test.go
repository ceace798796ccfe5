package evolve

import (
	"os"
	"strconv"
	"testing"

	"policyevolve/evolve/internal/evolvetest"
)

func TestMain(m *testing.M) {
	if path := os.Getenv("EVOLVE_TEST_JOB"); path != "" {
		workers, _ := strconv.Atoi(os.Getenv("EVOLVE_TEST_WORKERS"))
		os.Exit(jobHost(path, os.Getenv("EVOLVE_TEST_CACHE"), workers))
	}
	os.Exit(evolvetest.Main(m))
}
