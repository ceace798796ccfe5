package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// execBackend runs a command for each call ("exec:COMMAND", through
// sh -c): the prompt on its standard input (ExecInput) and the answer on
// its standard output. It suits command-line clients such as `claude -p`
// or `llm`. The command inherits the environment (its own keys are its
// business) and reports no usage.
//
// The command runs in a process group of its own, which is killed whole
// when the call ends: on its timeout, when the caller's context is
// cancelled (Ctrl-C), and after the command exits, so that nothing it
// started outlives the call. Being in its own group, it does not get the
// terminal's Ctrl-C itself: the caller decides (the first Ctrl-C of a run
// lets calls in flight finish).
type execBackend struct {
	command string
	timeout time.Duration
	limit   int // bytes of output; 0: MaxExecAnswer
}

// ExecSeparator separates the system message from the user message on an
// exec: command's standard input.
const ExecSeparator = "\n\n---\n\n"

// Separators before each further turn of a conversation on an exec:
// command's standard input: the model's earlier answer, the user's reply.
const (
	ExecAssistantSeparator = "\n\n--- your answer ---\n\n"
	ExecUserSeparator      = "\n\n--- reply ---\n\n"
)

// ExecInput is what an exec: command reads on its standard input for r:
// the system message, ExecSeparator and the user message; then, for a
// conversation, each turn after its separator (ExecAssistantSeparator or
// ExecUserSeparator).
func ExecInput(r Request) string {
	var b strings.Builder
	if r.System != "" {
		b.WriteString(r.System + ExecSeparator)
	}
	b.WriteString(r.Prompt)
	for _, t := range r.Turns {
		if t.Role == RoleAssistant {
			b.WriteString(ExecAssistantSeparator)
		} else {
			b.WriteString(ExecUserSeparator)
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

func (b *execBackend) generate(ctx context.Context, r Request) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	// kill ends the command early, when its answer runs over the bound.
	kctx, kill := context.WithCancel(ctx)
	defer kill()
	cmd := exec.CommandContext(kctx, "sh", "-c", b.command)
	ownGroup(cmd)
	cmd.Stdin = strings.NewReader(ExecInput(r))
	var errb bytes.Buffer
	out := &capWriter{n: b.maxAnswer(), over: kill}
	cmd.Stdout, cmd.Stderr = out, &limitWriter{w: &errb, n: 64 << 10}
	cmd.WaitDelay = 2 * time.Second
	if st := stateOf(ctx); st != nil {
		st.markSent() // whatever the command does may cost
	}
	err := cmd.Run()
	killGroup(cmd) // what it left running in the background
	if out.overran() {
		return result{}, tooLargeError(b.maxAnswer(), "the command was killed")
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return result{}, &APIError{Kind: ErrTimeout, Detail: fmt.Sprintf("the command ran over %v", b.timeout)}
		}
		var ee *exec.ExitError
		detail := err.Error()
		if errors.As(err, &ee) {
			detail = fmt.Sprintf("exit status %d", ee.ExitCode())
		}
		if s := strings.TrimSpace(errb.String()); s != "" {
			lines := strings.Split(s, "\n")
			detail += ": " + lines[len(lines)-1]
		}
		return result{}, &APIError{Kind: ErrCommand, Detail: oneLine(detail, 300)}
	}
	return result{text: string(out.buf)}, nil
}

// maxAnswer is the bound on the command's output: MaxExecAnswer unless a
// test set another.
func (b *execBackend) maxAnswer() int {
	if b.limit > 0 {
		return b.limit
	}
	return MaxExecAnswer
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
