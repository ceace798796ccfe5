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
// sh -c): the prompt on its standard input — the system message, a line
// "---", then the user message — and the answer on its standard output.
// It suits command-line clients such as `claude -p` or `llm`. The command
// inherits the environment (its own keys are its business) and reports no
// usage.
type execBackend struct {
	command string
	timeout time.Duration
}

// ExecSeparator separates the system message from the user message on an
// exec: command's standard input.
const ExecSeparator = "\n\n---\n\n"

func (b *execBackend) generate(ctx context.Context, r Request) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", b.command)
	in := r.Prompt
	if r.System != "" {
		in = r.System + ExecSeparator + r.Prompt
	}
	cmd.Stdin = strings.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitWriter{w: &errb, n: 64 << 10}
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
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
	return result{text: out.String()}, nil
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
