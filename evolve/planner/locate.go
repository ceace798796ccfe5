package planner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"policyevolve/sandbox"
)

// positions matches the places the sandbox's words point at in a
// policy: "policy.go:12:5" or "policy.go:12".
var positions = regexp.MustCompile(regexp.QuoteMeta(sandbox.PolicyFileName) + `:(\d+)(?::(\d+))?`)

// InAnswer rewrites the positions in a problem's words ("policy.go:12:5",
// counted in src, the policy Extract took from answer) as lines and
// columns of the answer itself ("line 20:5"): the fix request shows the
// model its answer, not the file we made of it. Extract adds what it adds
// on the code's first line, in front: columns there are shifted back.
// Words without positions, or an answer holding no policy, are returned
// as they are.
func InAnswer(words, answer string, src []byte) string {
	if words == "" || len(src) == 0 {
		return words
	}
	lines := strings.Split(strings.ReplaceAll(answer, "\r\n", "\n"), "\n")
	code, _, first := pickBlock(lines)
	if code == nil {
		return words
	}
	shift := 0
	srcFirst, _, _ := strings.Cut(string(src), "\n")
	if len(code) > 0 && strings.HasSuffix(srcFirst, code[0]) {
		shift = len(srcFirst) - len(code[0])
	}
	return positions.ReplaceAllStringFunc(words, func(m string) string {
		sub := positions.FindStringSubmatch(m)
		line, _ := strconv.Atoi(sub[1])
		if sub[2] == "" {
			return fmt.Sprintf("line %d", first+line)
		}
		col, _ := strconv.Atoi(sub[2])
		if line == 1 {
			col = max(1, col-shift)
		}
		return fmt.Sprintf("line %d:%d", first+line, col)
	})
}
