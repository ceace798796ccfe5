package llm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conversation is a fix request: the first prompt, the model's failed
// answer, and the error as the user's reply.
var conversation = Request{System: "You write policies.", Prompt: "Write one.",
	Turns: []Turn{{RoleAssistant, "```go\nfunc Policy() { oops }\n```"}, {RoleUser, "line 2:20: undefined: oops. Fix it."}}}

// wireMessages lists the (role, text) of a request body's messages as the
// protocol carries them (Anthropic's system message is apart).
func wireMessages(body map[string]any) [][2]string {
	var out [][2]string
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		out = append(out, [2]string{role, text(mm["content"])})
	}
	return out
}

// TestConversationOnTheWire: every protocol carries a conversation's
// turns as messages of their own, in order: the model's answer as the
// assistant's, the reply as the user's.
func TestConversationOnTheWire(t *testing.T) {
	for _, p := range allProtocols {
		t.Run(p.name, func(t *testing.T) {
			f := newFake(t, p, reply{text: "fixed", in: 1, out: 1})
			var sl sleeps
			if _, err := client(t, p, f, &sl, nil).Generate(context.Background(), conversation); err != nil {
				t.Fatal(err)
			}
			got := wireMessages(f.requests()[0].body)
			if len(got) > 0 && got[0][0] == "system" {
				if got[0][1] != conversation.System {
					t.Errorf("system message %q", got[0][1])
				}
				got = got[1:]
			}
			want := [][2]string{{"user", conversation.Prompt}, {"assistant", conversation.Turns[0].Text}, {"user", conversation.Turns[1].Text}}
			if len(got) != len(want) {
				t.Fatalf("messages %q, want %q", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("message %d: %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}

// TestConversationKeys: a single-turn request keeps the key it had before
// requests held turns (ledgers recorded then are found again); the turns
// are part of a conversation's identity; and turns that do not alternate
// are refused before anything is sent.
func TestConversationKeys(t *testing.T) {
	s := Settings{MaxTokens: 100, Reasoning: "effort=high"}
	single := Request{System: "sys", Prompt: "user", Sample: 2}
	// The key RequestKey gave this request before conversations (computed
	// with the code of that time).
	const before = "4600157cfd68c0f4257eba0c1d152bd59974271004d3382f03b9b632458163de"
	if got := RequestKey(OpenAI, "gpt-5", "https://api.openai.com/v1", s, single); got != before {
		t.Errorf("single-turn key %s, want the old %s", got, before)
	}
	a := RequestKey(OpenAI, "gpt-5", "u", s, conversation)
	c2 := conversation
	c2.Turns = []Turn{conversation.Turns[0], {RoleUser, "another error"}}
	if b := RequestKey(OpenAI, "gpt-5", "u", s, c2); a == b {
		t.Error("two conversations that differ in a turn have the same key")
	}
	if b := RequestKey(OpenAI, "gpt-5", "u", s, Request{System: conversation.System, Prompt: conversation.Prompt}); a == b {
		t.Error("a conversation has the key of its first message alone")
	}
	f := newFake(t, protoOpenAI, reply{text: "x"})
	var sl sleeps
	c := client(t, protoOpenAI, f, &sl, nil)
	for _, turns := range [][]Turn{
		{{RoleUser, "no answer before"}},
		{{RoleAssistant, "an answer and no reply"}},
		{{RoleAssistant, "  "}, {RoleUser, "empty answer"}},
	} {
		if _, err := c.Generate(context.Background(), Request{Prompt: "p", Turns: turns}); err == nil {
			t.Errorf("turns %q accepted", turns)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent for refused conversations", n)
	}
}

// TestConversationRecordedAndReplayed: a conversation is recorded with its
// turns and answered from the ledger when asked again; Recorded finds an
// answer without calling.
func TestConversationRecordedAndReplayed(t *testing.T) {
	f := newFake(t, protoAnthropic, reply{text: "fixed", in: 1, out: 1})
	var sl sleeps
	rec := &memRecorder{}
	c := client(t, protoAnthropic, f, &sl, func(c *Config) { c.Recorder = rec })
	if r, err := c.Recorded(context.Background(), conversation); r != nil || err != nil {
		t.Fatalf("recorded before any call: %+v %v", r, err)
	}
	first, err := c.Generate(context.Background(), conversation)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Generate(context.Background(), conversation)
	if err != nil || !again.Cached || again.Text != "fixed" {
		t.Fatalf("again: %+v %v", again, err)
	}
	found, err := c.Recorded(context.Background(), conversation)
	if err != nil || found == nil || found.CallID != first.CallID {
		t.Fatalf("Recorded: %+v %v", found, err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if len(rec.calls) != 1 || len(rec.calls[0].Request.Turns) != 2 || rec.calls[0].Request.Turns[0].Role != RoleAssistant {
		t.Errorf("recorded %+v", rec.calls)
	}
}

// TestExecConversation: an exec: command reads a conversation with each
// turn after its separator.
func TestExecConversation(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.txt")
	c, err := New(Config{Spec: "exec:cat > " + in + "; echo ok"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), conversation); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(in)
	want := conversation.System + ExecSeparator + conversation.Prompt + ExecAssistantSeparator + conversation.Turns[0].Text +
		ExecUserSeparator + conversation.Turns[1].Text
	if string(got) != want || string(got) != ExecInput(conversation) {
		t.Errorf("stdin %q, want %q", got, want)
	}
}

// TestIdentityURL: a client that calls another server under the identity
// of the first finds the answers recorded through the first; without it,
// the same request to another server is another request.
func TestIdentityURL(t *testing.T) {
	clearProviderEnv(t)
	first := newFake(t, protoOpenAI, reply{text: "from the first", in: 1, out: 1})
	second := newFake(t, protoOpenAI, reply{text: "from the second", in: 1, out: 1})
	rec := &memRecorder{}
	mk := func(base, identity string) *Client {
		c, err := New(Config{Spec: "openai:local", BaseURL: base, IdentityURL: identity, Getenv: env(nil), Recorder: rec})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := mk(first.url(), "").Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	moved, err := mk(second.url(), first.url()).Generate(context.Background(), req)
	if err != nil || !moved.Cached || moved.Text != "from the first" || len(second.requests()) != 0 {
		t.Fatalf("moved: %+v %v, %d requests to the second server", moved, err, len(second.requests()))
	}
	other, err := mk(second.url(), "").Generate(context.Background(), req)
	if err != nil || other.Cached || other.Text != "from the second" {
		t.Fatalf("another server: %+v %v", other, err)
	}
	if rec.calls[1].BaseURL != strings.TrimSuffix(second.url(), "/") {
		t.Errorf("recorded server %q, want the one called", rec.calls[1].BaseURL)
	}
}

// TestNoPhantomCalls: a call that never reached a server (nothing listens
// there) is not recorded; one the server answered with an error is.
func TestNoPhantomCalls(t *testing.T) {
	clearProviderEnv(t)
	rec := &memRecorder{}
	down := newFake(t, protoOpenAI)
	downURL := down.url()
	down.srv.Close()
	var sl sleeps
	c, err := New(Config{Spec: "openai:local", BaseURL: downURL, Getenv: env(nil), Recorder: rec, Retry: Retry{Sleep: sl.sleep}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), req); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("error %v, want ErrUnreachable", err)
	}
	if len(rec.calls) != 0 {
		t.Fatalf("a call that reached no server was recorded: %+v", rec.calls[0])
	}
	failing := newFake(t, protoOpenAI, reply{status: 400, body: `{"error":{"message":"bad"}}`})
	c, _ = New(Config{Spec: "openai:local", BaseURL: failing.url(), Getenv: env(nil), Recorder: rec})
	if _, err := c.Generate(context.Background(), req); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("error %v", err)
	}
	if len(rec.calls) != 1 || rec.calls[0].Err == "" {
		t.Fatalf("a refused call was not recorded: %+v", rec.calls)
	}
}

// TestStreamNotStreamed: a streaming request answered with something that
// is no stream (a proxy's HTML page) is a malformed answer that says so,
// not an empty answer blamed on the model's reasoning.
func TestStreamNotStreamed(t *testing.T) {
	for _, p := range []protocol{streaming(protoOpenAI), streaming(protoAnthropic)} {
		_, _, _, err := exchange(t, p, nil, reply{body: "<html><body>502 Bad Gateway</body></html>"})
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "did not stream") || strings.Contains(err.Error(), "reasoning") {
			t.Errorf("%s: error %v, want a malformed answer that did not stream", p.name, err)
		}
	}
	// A stream whose answer is empty is still an empty answer.
	_, _, _, err := exchange(t, streaming(protoOpenAI), nil, reply{text: "", in: 10, out: 4000})
	if !errors.Is(err, ErrEmptyAnswer) {
		t.Errorf("empty stream: %v, want ErrEmptyAnswer", err)
	}
}
