package qlearn

import "policyevolve/envs/ssd"

// space describes a game's discrete state: the features' names and their
// number of values. A state's key is its tuple read as a mixed-radix
// number, the first feature most significant.
type space struct {
	names []string
	radix []int
	size  int // number of distinct states
}

var spaces = [2]space{
	ssd.Gathering: newSpace(
		[]string{"apple_step", "apple_dist", "local_apples", "rival_dir", "rival_dist", "can_beam", "hit"},
		[]int{6, 4, 3, 5, 3, 2, 2}),
	ssd.Cleanup: newSpace(
		[]string{"apple_step", "apple_dist", "waste_step", "waste_dist", "waste_density", "can_clean", "local_apple", "rival_dist"},
		[]int{6, 3, 6, 3, 3, 2, 2, 3}),
}

func newSpace(names []string, radix []int) space {
	size := 1
	for _, r := range radix {
		size *= r
	}
	return space{names: names, radix: radix, size: size}
}

// encode returns the key of a tuple whose values are in range.
func (s *space) encode(tuple []int) int32 {
	k := 0
	for i, v := range tuple {
		k = k*s.radix[i] + v
	}
	return int32(k)
}

// decode returns the tuple of a key.
func (s *space) decode(key int32) []int {
	out := make([]int, len(s.radix))
	k := int(key)
	for i := len(s.radix) - 1; i >= 0; i-- {
		out[i] = k % s.radix[i]
		k /= s.radix[i]
	}
	return out
}

// feature returns value i of the tuple of key.
func (s *space) feature(key int32, i int) int {
	k := int(key)
	for j := len(s.radix) - 1; j > i; j-- {
		k /= s.radix[j]
	}
	return k % s.radix[i]
}
