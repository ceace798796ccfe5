package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// browser is headless Chromium driven through the DevTools protocol over
// a pipe (--remote-debugging-pipe: JSON messages ending in a NUL byte on
// file descriptors 3 and 4), so that a test can open a page, leave it
// open, and read what it shows as it changes.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File // our end of Chromium's fd 3
	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpReply
	dead    chan struct{}
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// chromiumPath finds Chromium, or skips the test saying why.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium or chromium-browser on PATH: the page is not opened in a browser (.ci/run installs Debian's chromium)")
	return ""
}

// startBrowser starts Chromium in a process group of its own, with its
// profile in a temporary folder; the group is killed when the test ends.
func startBrowser(t *testing.T) *browser {
	bin := chromiumPath(t)
	home := t.TempDir()
	cmdR, cmdW, err := os.Pipe() // we write commands, Chromium reads fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // Chromium writes fd 4, we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-dev-shm-usage", "--remote-debugging-pipe", "--user-data-dir="+filepath.Join(home, "profile"), "about:blank")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, waiting: map[int]chan cdpReply{}, dead: make(chan struct{})}
	t.Cleanup(func() {
		cmdW.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		outR.Close()
	})
	go b.read(outR)
	return b
}

// read dispatches Chromium's replies to their callers (events are
// dropped) until the pipe closes.
func (b *browser) read(f *os.File) {
	defer close(b.dead)
	r := bufio.NewReader(f)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// call sends one command (to a page's session, when session is set) and
// waits for its reply, at most timeout.
func (b *browser) call(session, method string, params any, out any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: write to chromium: %w", method, err)
	}
	select {
	case rep := <-ch:
		if rep.Error != nil {
			return fmt.Errorf("%s: %s", method, rep.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(rep.Result, out)
		}
		return nil
	case <-b.dead:
		return fmt.Errorf("%s: chromium is gone", method)
	case <-time.After(browserTimeout):
		return fmt.Errorf("%s: no answer from chromium in %v", method, browserTimeout)
	}
}

// browserTimeout bounds one exchange with Chromium: starting a browser
// or loading a page on a busy 2-core machine takes seconds, not minutes.
const browserTimeout = 3 * time.Minute

// tab is one open page.
type tab struct {
	b       *browser
	session string
}

// open opens url in a new tab.
func (b *browser) open(url string) *tab {
	b.t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": url}, &target); err != nil {
		b.t.Fatal(err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		b.t.Fatal(err)
	}
	return &tab{b: b, session: att.SessionID}
}

// eval evaluates a JavaScript expression in the page and decodes its
// value into out.
func (tb *tab) eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := tb.b.call(tb.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		return err
	}
	if res.Exception != nil {
		return fmt.Errorf("%s: %s", expr, res.Exception.Text)
	}
	if out == nil || res.Result.Value == nil {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// waitFor evaluates a boolean expression until it is true, every 200 ms
// for at most d; false when it never became true.
func (tb *tab) waitFor(ctx context.Context, expr string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var ok bool
		if err := tb.eval(expr, &ok); err == nil && ok {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}
