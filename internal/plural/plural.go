package plural

import (
	"strconv"
	"strings"
)

// N is n followed by noun, made plural unless n is 1 (see Of).
func N(n int, noun string) string { return strconv.Itoa(n) + " " + Of(n, noun) }

// Of is noun, made plural unless n is 1: a noun ending in a consonant
// and y takes -ies (policy, policies), one ending in s, x, z, ch or sh
// takes -es (match, matches), any other -s. In a phrase the last word is
// the noun: "planner call" → "planner calls".
func Of(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	head, last := "", noun
	if i := strings.LastIndexByte(noun, ' '); i >= 0 {
		head, last = noun[:i+1], noun[i+1:]
	}
	return head + plural(last)
}

func plural(w string) string {
	switch {
	case strings.HasSuffix(w, "y") && len(w) > 1 && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return w[:len(w)-1] + "ies"
	case strings.HasSuffix(w, "s"), strings.HasSuffix(w, "x"), strings.HasSuffix(w, "z"),
		strings.HasSuffix(w, "ch"), strings.HasSuffix(w, "sh"):
		return w + "es"
	}
	return w + "s"
}
