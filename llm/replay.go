package llm

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"policyevolve/internal/infile"
)

// A replay file holds recorded answers, served in order, one per call:
//
//	Anything before the first marker is a comment.
//	=== answer
//	I will collect the nearest apple.
//	```go
//	func Policy(v *ssd.View, agent int) int { return ssd.Stand }
//	```
//	=== answer (a second call gets this one)
//	…
//
// A marker is a line starting with "=== answer"; the rest of that line is
// a comment too. An answer is the text between two markers, without the
// newline before the next marker. Calls past the last answer fail with
// ErrReplay. Replay reports no usage.
type replayBackend struct {
	path    string
	mu      sync.Mutex
	answers []string
	next    int
}

// ReplayMarker starts an answer in a replay file.
const ReplayMarker = "=== answer"

// MaxReplayFile bounds a replay file: a few hundred answers of a policy
// each.
const MaxReplayFile = 64 << 20

func loadReplay(path string) (*replayBackend, error) {
	data, err := infile.Read(path, MaxReplayFile)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	answers := ParseReplay(string(data))
	if len(answers) == 0 {
		return nil, fmt.Errorf("replay %s: no answers (each starts on a line %q)", path, ReplayMarker)
	}
	return &replayBackend{path: path, answers: answers}, nil
}

// ParseReplay splits a replay file into its answers.
func ParseReplay(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out []string
	var cur *strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, ReplayMarker) {
			if cur != nil {
				out = append(out, strings.TrimSuffix(cur.String(), "\n"))
			}
			cur = &strings.Builder{}
			continue
		}
		if cur != nil {
			cur.WriteString(line)
		}
	}
	if cur != nil {
		out = append(out, strings.TrimSuffix(cur.String(), "\n"))
	}
	return out
}

// FormatReplay writes answers as a replay file.
func FormatReplay(answers []string) string {
	var b strings.Builder
	for i, a := range answers {
		fmt.Fprintf(&b, "%s %d\n%s\n", ReplayMarker, i+1, a)
	}
	return b.String()
}

func (b *replayBackend) generate(ctx context.Context, _ Request) (result, error) {
	if st := stateOf(ctx); st != nil {
		st.markSent() // recorded like any call
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next >= len(b.answers) {
		return result{}, &APIError{Kind: ErrReplay,
			Detail: fmt.Sprintf("%s holds %d answers and call %d asked for another", b.path, len(b.answers), b.next+1)}
	}
	b.next++
	return result{text: b.answers[b.next-1]}, nil
}
