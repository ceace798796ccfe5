package planner_test

import (
	"os"
	"testing"

	"policyevolve/evolve/internal/evolvetest"
)

func TestMain(m *testing.M) { os.Exit(evolvetest.Main(m)) }
