package main

import (
	"maps"
	"slices"
	"strings"
)

// didYouMean names the candidate closest to a mistyped word, as
// " (did you mean PREFIXname?)", or "" when none is close: a candidate
// within two edits (one for words of three letters or fewer), or one the
// word starts (the first such for a word of three letters or more; the
// only one for a two-letter word: pool sh → show, but re is not guessed
// between render and report).
func didYouMean(word string, candidates []string, prefix string) string {
	best, bestD := "", 0
	for _, c := range slices.Sorted(slices.Values(candidates)) {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(word) <= 3 {
		limit = 1
	}
	if best == "" || bestD > limit {
		var starts []string
		for _, c := range slices.Sorted(slices.Values(candidates)) {
			if len(word) >= 2 && strings.HasPrefix(c, word) {
				starts = append(starts, c)
			}
		}
		if len(starts) == 1 || len(starts) > 1 && len(word) >= 3 {
			return " (did you mean " + prefix + starts[0] + "?)"
		}
		return ""
	}
	return " (did you mean " + prefix + best + "?)"
}

// editDistance is the Levenshtein distance of a and b, counting a swap of
// two neighbouring letters as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// mapKeys returns the keys of a table (commands, flags' values).
func mapKeys[V any](m map[string]V) []string {
	return slices.Collect(maps.Keys(m))
}
