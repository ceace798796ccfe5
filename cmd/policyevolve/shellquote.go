package main

import (
	"regexp"
	"strings"
)

// shellSafe matches words a POSIX shell reads as themselves.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell, for the commands printed as
// hints: a word of safe characters as it is, anything else in single
// quotes (a quote inside closes them, is escaped and reopens them), so
// that a path such as x;$(id).db pasted from a hint is a path, never a
// command.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
