package store

import "testing"

func TestParseGlobalPool(t *testing.T) {
	env := EnvConfig{Game: "cleanup", Map: "file:0123456789ab", Agents: 10, MaxSteps: 1000}
	for _, tc := range []struct {
		name string
		env  EnvConfig
		tag  string
		ok   bool
	}{
		{GlobalPool(env), env, "", true},
		{TaggedGlobalPool(env, ""), env, "", true},
		{TaggedGlobalPool(env, "cmp-1a2b-chain-0"), env, "cmp-1a2b-chain-0", true},
		{LocalPool("run-1", 3), EnvConfig{}, "", false},
		{"global/cleanup/small/10", EnvConfig{}, "", false},
		{"global/cleanup/small/ten/1000", EnvConfig{}, "", false},
		{"global/cleanup/small/010/1000", EnvConfig{}, "", false},
	} {
		env, tag, ok := ParseGlobalPool(tc.name)
		if env != tc.env || tag != tc.tag || ok != tc.ok {
			t.Errorf("ParseGlobalPool(%q) = %+v, %q, %v; want %+v, %q, %v", tc.name, env, tag, ok, tc.env, tc.tag, tc.ok)
		}
	}
}
