package render

import (
	"strings"
	"testing"

	"policyevolve/envs/ssd"
)

// TestLegend: the key names the colours the renderer draws with, the
// Cleanup-only ones only for Cleanup.
func TestLegend(t *testing.T) {
	g, c := Legend(ssd.Gathering), Legend(ssd.Cleanup)
	has := func(l []LegendEntry, label string) bool {
		for _, e := range l {
			if e.Label == label {
				return true
			}
		}
		return false
	}
	if !has(g, "apple") || has(g, "waste") || !has(c, "waste") || !has(c, "cleaning beam") {
		t.Errorf("gathering %v, cleanup %v", g, c)
	}
	for _, e := range c {
		if h := e.Hex(); len(h) != 7 || !strings.HasPrefix(h, "#") {
			t.Errorf("%s: %q", e.Label, h)
		}
	}
	if g[1].Hex() != "#00c800" {
		t.Errorf("apple %s", g[1].Hex())
	}
}
