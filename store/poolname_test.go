package store

import "testing"

// TestParseGlobalPool: every pool name reads back as the key that made it;
// the untagged name is the elo objective's shared pool, as it was before
// objectives existed.
func TestParseGlobalPool(t *testing.T) {
	env := EnvConfig{Game: "cleanup", Map: "file:0123456789ab", Agents: 10, MaxSteps: 1000}
	elo := PoolKey{Env: env, Objective: UntaggedObjective}
	for _, tc := range []struct {
		name string
		want PoolKey
		ok   bool
	}{
		{GlobalPool(env), elo, true},
		{"global/cleanup/file:0123456789ab/10/1000", elo, true},
		{PoolKey{Env: env}.String(), elo, true},
		{PoolKey{Env: env, Objective: "elo"}.String(), elo, true},
		{PoolKey{Env: env, Tag: "cmp-1a2b-chain-0"}.String(), PoolKey{Env: env, Objective: "elo", Tag: "cmp-1a2b-chain-0"}, true},
		{PoolKey{Env: env, Objective: "welfare"}.String(), PoolKey{Env: env, Objective: "welfare"}, true},
		{"global/cleanup/file:0123456789ab/10/1000@welfare#cmp-1a2b-population-0", PoolKey{Env: env, Objective: "welfare", Tag: "cmp-1a2b-population-0"}, true},
		{"global/cleanup/file:0123456789ab/10/1000@elo", PoolKey{}, false},
		{"global/cleanup/file:0123456789ab/10/1000@", PoolKey{}, false},
		{LocalPool("run-1", 3), PoolKey{}, false},
		{"global/cleanup/small/10", PoolKey{}, false},
		{"global/cleanup/small/ten/1000", PoolKey{}, false},
		{"global/cleanup/small/010/1000", PoolKey{}, false},
	} {
		got, ok := ParseGlobalPool(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseGlobalPool(%q) = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.name {
			t.Errorf("%q reads back as %q", tc.name, got.String())
		}
	}
	if a, b := (PoolKey{Env: env}).String(), GlobalPool(env); a != b {
		t.Errorf("the elo pool is %q, not the untagged %q", a, b)
	}
}
