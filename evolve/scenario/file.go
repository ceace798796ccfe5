package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// Parse reads a suite file, TOML:
//
//	name = "strangers"
//
//	[[scenario]]
//	background = "exploit"   # a built-in, a store id, a FILE.go, …
//	mode = "resident"        # or "visitor"
//	k = 1                    # the minority's agents
//	name = "one beamer"      # optional
//
// A key it does not know, a value of the wrong type, a missing background,
// an unknown mode, k < 1 or two scenarios with one name is an error that
// says where. The suite's name defaults to "" (callers name it after the
// file). Whether k fits an episode is checked when it is played (Fits).
func Parse(data []byte) (Suite, error) {
	var s Suite
	md, err := toml.Decode(string(data), &s)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return Suite{}, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return Suite{}, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return Suite{}, fmt.Errorf("unknown key %s (a suite has name and [[scenario]] tables of name, background, mode, k)", strings.Join(keys, ", "))
	}
	if err := s.Validate(); err != nil {
		return Suite{}, err
	}
	return s, nil
}

// Encode is the suite's stable encoding: compact JSON with the fields in
// a fixed order, every scenario's name filled in (Label), so two suites
// that play the same scenarios under the same names encode alike and a
// suite stored with a run decodes to what was played. Decode reads it.
func Encode(s Suite) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c := Suite{Name: s.Name, Scenarios: make([]Scenario, len(s.Scenarios))}
	for i, sc := range s.Scenarios {
		sc.Name = sc.Label()
		c.Scenarios[i] = sc
	}
	return json.Marshal(c)
}

// Decode reads Encode's encoding (unknown fields are an error).
func Decode(data []byte) (Suite, error) {
	var s Suite
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Suite{}, fmt.Errorf("suite encoding: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Suite{}, fmt.Errorf("suite encoding: %w", err)
	}
	return s, nil
}

// ID is a content address of the suite: the hex SHA-256 of its encoding.
func ID(s Suite) (string, error) {
	b, err := Encode(s)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}
