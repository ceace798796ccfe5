package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []uint64
		err  string
	}{
		{in: "0", want: []uint64{0}},
		{in: "0-4", want: []uint64{0, 1, 2, 3, 4}},
		{in: "1,3,7", want: []uint64{1, 3, 7}},
		{in: " 0-2 , 10 ", want: []uint64{0, 1, 2, 10}},
		{in: "18446744073709551614-18446744073709551615", want: []uint64{18446744073709551614, 18446744073709551615}},
		{in: "", err: "empty seed list"},
		{in: "a", err: `seed "a" is not a non-negative integer`},
		{in: "-3", err: `malformed seed list item "-3"`},
		{in: "1,,2", err: `malformed seed list item ""`},
		{in: "5-2", err: `seed range "5-2" runs backwards`},
		{in: "1,1", err: "seed 1 appears twice"},
		{in: "0-3,2", err: "seed 2 appears twice"},
		{in: "0-999999999", err: "holds more than 100000 seeds"},
		{in: "18446744073709551616", err: "is not a non-negative integer"},
	} {
		got, err := parseSeeds(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseSeeds(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseSeeds(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"0-4", "1,3,7", "0-2,10", "", "5-2", "x", "18446744073709551615"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seeds, err := parseSeeds(s)
		if err != nil {
			return
		}
		if len(seeds) == 0 || len(seeds) > maxSeeds {
			t.Fatalf("%q gave %d seeds", s, len(seeds))
		}
		seen := map[uint64]bool{}
		for _, v := range seeds {
			if seen[v] {
				t.Fatalf("%q gave seed %d twice", s, v)
			}
			seen[v] = true
		}
	})
}
