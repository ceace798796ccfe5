package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// seedWords writes a seed set as "0–24" when it runs without a gap,
// else as a comma-separated list.
func seedWords(seeds []uint64) string {
	seeds = slices.Compact(slices.Sorted(slices.Values(seeds)))
	if len(seeds) > 1 && seeds[len(seeds)-1]-seeds[0] == uint64(len(seeds)-1) {
		return fmt.Sprintf("%d–%d", seeds[0], seeds[len(seeds)-1])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, ",")
}

// maxSeeds bounds a seed list, so that a typo like 0-99999999999 is an
// error rather than an endless job.
const maxSeeds = 100000

// parseSeeds parses a seed list: comma-separated seeds and inclusive
// ranges, e.g. "0-4", "1,3,7" or "0-2,10". Seeds are unsigned 64-bit
// integers and may not repeat.
func parseSeeds(s string) ([]uint64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty seed list")
	}
	var out []uint64
	seen := map[uint64]bool{}
	add := func(v uint64) error {
		if seen[v] {
			return fmt.Errorf("seed %d appears twice", v)
		}
		if len(out) >= maxSeeds {
			return fmt.Errorf("more than %d seeds", maxSeeds)
		}
		seen[v] = true
		out = append(out, v)
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseSeed(lo, part)
		if err != nil {
			return nil, err
		}
		if !isRange {
			if err := add(a); err != nil {
				return nil, err
			}
			continue
		}
		b, err := parseSeed(hi, part)
		if err != nil {
			return nil, err
		}
		if b < a {
			return nil, fmt.Errorf("seed range %q runs backwards", part)
		}
		if b-a >= maxSeeds {
			return nil, fmt.Errorf("seed range %q holds more than %d seeds", part, maxSeeds)
		}
		for v := a; ; v++ {
			if err := add(v); err != nil {
				return nil, err
			}
			if v == b {
				break
			}
		}
	}
	return out, nil
}

func parseSeed(s, part string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("malformed seed list item %q (want N or A-B)", part)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seed %q is not a non-negative integer", s)
	}
	return v, nil
}
