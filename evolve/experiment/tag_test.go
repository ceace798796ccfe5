package experiment

import "testing"

// TestPoolTag: a run's pool tag names its comparison, method and run, and
// reads back; other tags do not read as a comparison's.
func TestPoolTag(t *testing.T) {
	for _, m := range []string{"chain", "chain-critic", "chain-react", "population", "gepa", "gepa-dense"} {
		id, method, run, ok := ParseTag(PoolTag("cmp-62580937", m, 3))
		if !ok || id != "cmp-62580937" || method != m || run != 3 {
			t.Errorf("%s: read back as %q %q %d %v", m, id, method, run, ok)
		}
	}
	for _, tag := range []string{"", "mine", "cmp-62580937", "cmp-xyz-chain-0", "cmp-62580937-chain-", "cmp-62580937-zero-shot-extra-0"} {
		if id, _, _, ok := ParseTag(tag); ok {
			t.Errorf("%q reads as comparison %s", tag, id)
		}
	}
}
