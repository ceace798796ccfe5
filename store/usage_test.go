package store

import "testing"

// A call without a price has an unknown cost, never $0: both the words
// and a table's column say so.
func TestCostWords(t *testing.T) {
	for _, tc := range []struct {
		u           RunUsage
		words, cell string
	}{
		{RunUsage{}, "$0.0000", "$0.000"},
		{RunUsage{LLMCalls: 3, Cost: 0.42}, "$0.4200", "$0.420"},
		{RunUsage{LLMCalls: 3, UnpricedCalls: 3}, "cost unknown (no price for the model)", "?"},
		{RunUsage{LLMCalls: 5, UnpricedCalls: 2, Cost: 0.1}, "$0.1000 + 2 calls of unknown cost", "$0.100+?"},
	} {
		if got := tc.u.CostWords(); got != tc.words {
			t.Errorf("%+v: CostWords %q, want %q", tc.u, got, tc.words)
		}
		if got := tc.u.CostShort(); got != tc.cell {
			t.Errorf("%+v: CostShort %q, want %q", tc.u, got, tc.cell)
		}
	}
}
