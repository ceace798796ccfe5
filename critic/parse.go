package critic

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits on what an LLM's reflections may hold.
const (
	maxCodeLen = 40
	maxTextLen = 800
)

// ParseReflections reads the reflections out of an LLM's answer: a JSON
// array of {"code", "text", "stake"} objects (or an object holding one
// under "reflections"), in a fenced block or bare, with prose around it
// allowed. Codes are normalised to lower-case kebab case ("llm" when
// empty), whitespace in texts is collapsed and long texts are cut; the
// reflections are ranked by stake, largest first (ties keep the model's
// order), and the first max are kept.
//
// An answer with no such array, an empty one, a reflection without text,
// or a stake that is missing, negative or not finite is an error.
func ParseReflections(answer string, max int) ([]Reflection, error) {
	if max <= 0 {
		max = DefaultMax
	}
	var firstErr error
	for _, cand := range candidates(answer) {
		refl, err := decodeReflections(cand)
		if err == nil {
			slices.SortStableFunc(refl, func(a, b Reflection) int { return cmp.Compare(b.Stake, a.Stake) })
			if len(refl) > max {
				refl = refl[:max]
			}
			return refl, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = errors.New("no JSON array of reflections in the answer")
	}
	return nil, firstErr
}

// candidates returns the texts that may hold the JSON, most likely first:
// fenced blocks (json-labelled ones first), then the span from the first
// '[' to the last ']', then from the first '{' to the last '}'.
func candidates(answer string) []string {
	var labelled, plain []string
	rest := answer
	for {
		start := strings.Index(rest, "```")
		if start < 0 {
			break
		}
		body := rest[start+3:]
		end := strings.Index(body, "```")
		if end < 0 {
			break
		}
		block := body[:end]
		rest = body[end+3:]
		label, content, _ := strings.Cut(block, "\n")
		if strings.EqualFold(strings.TrimSpace(label), "json") {
			labelled = append(labelled, content)
		} else {
			plain = append(plain, block)
		}
	}
	out := append(labelled, plain...)
	for _, br := range [][2]string{{"[", "]"}, {"{", "}"}} {
		if i, j := strings.Index(answer, br[0]), strings.LastIndex(answer, br[1]); i >= 0 && j > i {
			out = append(out, answer[i:j+1])
		}
	}
	return out
}

// rawReflection is a reflection as a model writes it.
type rawReflection struct {
	Code  string   `json:"code"`
	Text  string   `json:"text"`
	Stake *float64 `json:"stake"`
}

func decodeReflections(s string) ([]Reflection, error) {
	s = strings.TrimSpace(s)
	var raw []rawReflection
	if strings.HasPrefix(s, "{") {
		var wrapped struct {
			Reflections []rawReflection `json:"reflections"`
		}
		if err := json.Unmarshal([]byte(s), &wrapped); err != nil {
			return nil, fmt.Errorf("the JSON does not parse: %v", err)
		}
		raw = wrapped.Reflections
	} else if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, fmt.Errorf("the JSON does not parse: %v", err)
	}
	if len(raw) == 0 {
		return nil, errors.New("the answer holds no reflections")
	}
	out := make([]Reflection, len(raw))
	for i, r := range raw {
		text := strings.Join(strings.Fields(r.Text), " ")
		switch {
		case text == "":
			return nil, fmt.Errorf("reflection %d has no text", i+1)
		case r.Stake == nil:
			return nil, fmt.Errorf("reflection %d has no stake", i+1)
		case math.IsNaN(*r.Stake) || math.IsInf(*r.Stake, 0) || *r.Stake < 0:
			return nil, fmt.Errorf("reflection %d has stake %v (want a number, zero or more)", i+1, *r.Stake)
		}
		out[i] = Reflection{Code: normaliseCode(r.Code), Text: cut(text, maxTextLen), Stake: *r.Stake}
	}
	return out, nil
}

// normaliseCode turns a model's code into lower-case kebab case: letters
// and digits kept, every other run of characters one '-'.
func normaliseCode(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	code := b.String()
	if len(code) > maxCodeLen {
		code = strings.TrimRight(code[:maxCodeLen], "-")
	}
	if code == "" {
		return "llm"
	}
	return code
}

// cut shortens s to at most n bytes, on a character boundary, marking the
// cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
