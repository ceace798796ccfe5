package envs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"policyevolve/internal/golden"
)

// rngVector is one seed's entry of rng.json (format in testdata/golden/README.md).
type rngVector struct {
	Seed     uint64            `json:"seed"`
	Random   []float64         `json:"random"`
	Integers [][2]int64        `json:"integers"`
	Shuffle  [][]int           `json:"shuffle"`
	Mixed    []json.RawMessage `json:"mixed"`
}

func loadRNGVectors(t *testing.T) []rngVector {
	t.Helper()
	path := filepath.Join(golden.Dir(t), "rng.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read rng vectors: %v", err)
	}
	var vs []rngVector
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s holds no vectors", path)
	}
	return vs
}

func shuffled(r *RNG, k int) []int {
	lst := make([]int, k)
	for i := range lst {
		lst[i] = i
	}
	r.Shuffle(k, func(i, j int) { lst[i], lst[j] = lst[j], lst[i] })
	return lst
}

func TestRNGMatchesNumpy(t *testing.T) {
	for _, v := range loadRNGVectors(t) {
		t.Run(fmt.Sprint("seed=", v.Seed), func(t *testing.T) {
			r := NewRNG(v.Seed)
			for i, want := range v.Random {
				if got := r.Random(); got != want {
					t.Fatalf("random #%d: got %v, want %v", i, got, want)
				}
			}
			r = NewRNG(v.Seed)
			for i, kv := range v.Integers {
				if got := r.Integers(kv[0]); got != kv[1] {
					t.Fatalf("integers #%d (k=%d): got %d, want %d", i, kv[0], got, kv[1])
				}
			}
			r = NewRNG(v.Seed)
			for i, want := range v.Shuffle {
				if got := shuffled(r, len(want)); !slices.Equal(got, want) {
					t.Fatalf("shuffle #%d (k=%d): got %v, want %v", i, len(want), got, want)
				}
			}
			r = NewRNG(v.Seed)
			for i, raw := range v.Mixed {
				var call []json.RawMessage
				if err := json.Unmarshal(raw, &call); err != nil || len(call) < 2 {
					t.Fatalf("mixed #%d: malformed entry %s", i, raw)
				}
				var kind string
				mustJSON(t, call[0], &kind)
				switch kind {
				case "random":
					var want float64
					mustJSON(t, call[1], &want)
					if got := r.Random(); got != want {
						t.Fatalf("mixed #%d random: got %v, want %v", i, got, want)
					}
				case "integers":
					var k, want int64
					mustJSON(t, call[1], &k)
					mustJSON(t, call[2], &want)
					if got := r.Integers(k); got != want {
						t.Fatalf("mixed #%d integers(%d): got %d, want %d", i, k, got, want)
					}
				case "shuffle":
					var k int
					var want []int
					mustJSON(t, call[1], &k)
					mustJSON(t, call[2], &want)
					if got := shuffled(r, k); !slices.Equal(got, want) {
						t.Fatalf("mixed #%d shuffle(%d): got %v, want %v", i, k, got, want)
					}
				default:
					t.Fatalf("mixed #%d: unknown call %q", i, kind)
				}
			}
		})
	}
}

func mustJSON(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

func TestRNGIntegersPanicsOnEmptyRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Integers(0) did not panic")
		}
	}()
	NewRNG(1).Integers(0)
}

func BenchmarkRNGRandom(b *testing.B) {
	r := NewRNG(1)
	var s float64
	for b.Loop() {
		s += r.Random()
	}
	_ = s
}
