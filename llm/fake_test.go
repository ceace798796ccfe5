package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A fake server speaks one provider's wire protocol, replays a script of
// replies, and records every request it got.

// reply is one scripted answer of a fake server.
type reply struct {
	status  int               // non-zero: answer with this status and body
	header  map[string]string // extra response headers
	body    string            // raw body (status replies, or a malformed 200)
	hang    bool              // never answer: wait until the client gives up
	text    string            // an answer (status 0, body "")
	reason  string            // thinking text, for protocols that return it
	in, out int               // usage
	think   int               // reasoning tokens
}

// got is a request as the fake saw it.
type got struct {
	method, path string
	header       http.Header
	body         map[string]any
	system, user string // where the protocol puts them
}

// protocol is one wire format.
type protocol struct {
	name     string
	provider string
	prefix   string // base URL path
	path     string // request path under it
	stream   bool
	// parse finds the system and user messages in a request body.
	parse func(body map[string]any) (system, user string)
	// write writes a successful answer.
	write func(w http.ResponseWriter, r reply, stream bool)
	// authHeader and authValue say where the key must arrive.
	authHeader, authPrefix string
	// reasoningTokens: the protocol reports them.
	reasoningTokens bool
}

type fake struct {
	t      *testing.T
	p      protocol
	srv    *httptest.Server
	mu     sync.Mutex
	script []reply
	reqs   []got
	done   chan struct{}
}

func newFake(t *testing.T, p protocol, script ...reply) *fake {
	f := &fake{t: t, p: p, script: script, done: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		close(f.done)
		f.srv.Close()
	})
	return f
}

// url is the base URL to configure the client with.
func (f *fake) url() string { return f.srv.URL + f.p.prefix }

func (f *fake) requests() []got {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]got(nil), f.reqs...)
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	g := got{method: r.Method, path: r.URL.Path, header: r.Header.Clone()}
	if err := json.Unmarshal(data, &g.body); err != nil {
		f.t.Errorf("%s: request body is not JSON: %v: %s", f.p.name, err, data)
	}
	g.system, g.user = f.p.parse(g.body)
	f.mu.Lock()
	f.reqs = append(f.reqs, g)
	var rep reply
	if len(f.script) > 0 {
		rep = f.script[0]
		if len(f.script) > 1 {
			f.script = f.script[1:]
		}
	}
	f.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	switch {
	case rep.hang:
		select {
		case <-r.Context().Done():
		case <-f.done:
		}
	case rep.status != 0:
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
	case rep.body != "":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, rep.body)
	default:
		stream, _ := g.body["stream"].(bool)
		f.p.write(w, rep, stream)
	}
}

// text returns the text of a message's content: a string or a list of
// {type: text, text} parts.
func text(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// chatMessages reads OpenAI- and Ollama-style messages: the system
// message must be the first, role "system", and the user's the last.
func chatMessages(body map[string]any) (system, user string) {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		switch mm["role"] {
		case "system":
			system = text(mm["content"])
		case "user":
			user = text(mm["content"])
		}
	}
	return system, user
}

func writeOpenAI(w http.ResponseWriter, r reply, stream bool) {
	usage := map[string]any{"prompt_tokens": r.in, "completion_tokens": r.out, "total_tokens": r.in + r.out,
		"completion_tokens_details": map[string]any{"reasoning_tokens": r.think}}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": r.text}}},
			"usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	// The answer in pieces, then the usage in a chunk of its own.
	for i := 0; i < len(r.text); i += 7 {
		chunk(map[string]any{"id": "c", "object": "chat.completion.chunk", "choices": []any{map[string]any{
			"index": 0, "delta": map[string]any{"content": r.text[i:min(i+7, len(r.text))]}}}})
	}
	chunk(map[string]any{"id": "c", "object": "chat.completion.chunk", "choices": []any{map[string]any{
		"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
	chunk(map[string]any{"id": "c", "object": "chat.completion.chunk", "choices": []any{}, "usage": usage})
	io.WriteString(w, "data: [DONE]\n\n")
}

func writeAnthropic(w http.ResponseWriter, r reply, stream bool) {
	if stream {
		writeAnthropicStream(w, r)
		return
	}
	var content []any
	if r.reason != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": r.reason, "signature": "sig"})
	}
	// Two text blocks: the client must join them.
	half := len(r.text) / 2
	for _, part := range []string{r.text[:half], r.text[half:]} {
		if part != "" {
			content = append(content, map[string]any{"type": "text", "text": part})
		}
	}
	if content == nil {
		content = []any{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
		"content": content, "stop_reason": "end_turn",
		"usage": map[string]any{"input_tokens": r.in, "output_tokens": r.out}})
}

// writeAnthropicStream answers as server-sent events: a thinking block,
// then the text in pieces, the usage split between message_start and
// message_delta as Anthropic does.
func writeAnthropicStream(w http.ResponseWriter, r reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(name string, v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message",
		"role": "assistant", "model": "m", "content": []any{}, "usage": map[string]any{"input_tokens": r.in, "output_tokens": 1}}})
	idx := 0
	if r.reason != "" {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "thinking", "thinking": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
			"delta": map[string]any{"type": "thinking_delta", "thinking": r.reason}})
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	ev("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
		"content_block": map[string]any{"type": "text", "text": ""}})
	for i := 0; i < len(r.text); i += 7 {
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
			"delta": map[string]any{"type": "text_delta", "text": r.text[i:min(i+7, len(r.text))]}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"},
		"usage": map[string]any{"output_tokens": r.out}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

func writeOllama(w http.ResponseWriter, r reply, _ bool) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	for i := 0; i < len(r.text); i += 5 {
		enc.Encode(map[string]any{"model": "m", "created_at": "2025-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": r.text[i:min(i+5, len(r.text))]}, "done": false})
	}
	enc.Encode(map[string]any{"model": "m", "created_at": "2025-01-01T00:00:00Z",
		"message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
		"prompt_eval_count": r.in, "eval_count": r.out})
}

// streaming is p asking the server to stream.
func streaming(p protocol) protocol {
	p.name += "-stream"
	p.stream = true
	return p
}

var (
	protoOpenAI = protocol{name: "openai", provider: OpenAI, prefix: "/v1", path: "/v1/chat/completions",
		parse: chatMessages, write: writeOpenAI, authHeader: "Authorization", authPrefix: "Bearer ",
		reasoningTokens: true}
	protoGoogle = protocol{name: "google", provider: Google, prefix: "/v1beta/openai", path: "/v1beta/openai/chat/completions",
		parse: chatMessages, write: writeOpenAI, authHeader: "Authorization", authPrefix: "Bearer ",
		reasoningTokens: true}
	protoAnthropic = protocol{name: "anthropic", provider: Anthropic, prefix: "/v1", path: "/v1/messages",
		parse: func(body map[string]any) (string, string) {
			_, user := chatMessages(body)
			return text(body["system"]), user
		}, write: writeAnthropic, authHeader: "X-Api-Key"}
	protoOllama = protocol{name: "ollama", provider: Ollama, prefix: "", path: "/api/chat",
		parse: chatMessages, write: writeOllama, authHeader: "Authorization", authPrefix: "Bearer "}

	allProtocols = []protocol{protoOpenAI, streaming(protoOpenAI), protoGoogle, protoAnthropic, streaming(protoAnthropic),
		protoOllama, streaming(protoOllama)}
)
