// Package llm calls language models: OpenAI (and any OpenAI-compatible
// server), Anthropic, Google (through its OpenAI-compatible endpoint) and
// Ollama over HTTP through langchaingo, a local command (exec:), and
// recorded answers (replay:). A Client is selected by "PROVIDER:MODEL".
//
// What langchaingo gets wrong is mended below it, in the HTTP transport
// every provider shares: retries with capped, jittered exponential backoff
// that honour Retry-After on 408, 429, 5xx and 529; a timeout per attempt;
// and a rewrite of the request body so that the generation settings reach
// the wire as configured (temperature only when set, max tokens, OpenAI's
// reasoning_effort, Anthropic's thinking budget, Ollama's think flag).
//
// Every call has one normalised Usage (input, output and reasoning tokens)
// and a cost from a price table (DefaultPrices, overridable). A failed call
// is an *APIError whose Kind (ErrNoKey, ErrAuth, ErrUnknownModel,
// ErrRateLimited, ErrServer, ErrUnreachable, ErrTimeout, ErrMalformed,
// ErrEmptyAnswer…) callers test with errors.Is, and whose Temporary method
// says whether trying again later may help.
//
// Keys are read from the environment only (OPENAI_API_KEY,
// ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY, or the variable
// named by Config.KeyEnv) and never leave the Client: errors and recorded
// calls have the key replaced by "[redacted]".
//
// A Request is a system message and a user message, or a conversation
// that goes on from them (Turns: the model's answer, the user's reply…):
// a planner's fix request shows the model its failed answer.
//
// The package knows nothing of the store: a Recorder, handed in by the
// caller, writes every call that reached a server before its answer is
// returned, and answers a request identical to one it recorded (same
// provider, server, model, settings, messages and sample index) without a
// call. The server a request is identified by may be another than the
// one called (Config.IdentityURL: a run that moved its model). A Gate,
// handed in too, admits each call before it is sent, told its worst case
// (Client.Worst): a run's budgets. A Throttle, shared by the Clients of
// one server, makes a 429 slow them all.
package llm
