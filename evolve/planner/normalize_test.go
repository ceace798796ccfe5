package planner

import (
	"strings"
	"testing"

	"policyevolve/sandbox"
)

// TestNormalizedIDOfDeepSources: a source nested deeper than admission
// allows (a sum of 20,000 terms, whose formatting is quadratic in its
// length) is identified by its text, not formatted; one within the limit
// is normalised as usual (layout set aside).
func TestNormalizedIDOfDeepSources(t *testing.T) {
	sum := func(terms int, sep string) string {
		return "package policy\n\nimport \"ssd\"\n\nconst n = " + strings.Repeat("1"+sep, terms-1) + "1\n\n" +
			"func Policy(v *ssd.View, agent int) int { return n % 5 }\n"
	}
	deep := sum(20000, "+")
	if got := NormalizedID([]byte(deep)); got != sandbox.SourceID([]byte(deep)) {
		t.Errorf("a 20,000-term sum: %s, want its text's id", got)
	}
	if a, b := NormalizedID([]byte(sum(50, "+"))), NormalizedID([]byte(sum(50, " + "))); a != b {
		t.Errorf("a 50-term sum laid out two ways: %s and %s, want one id", a, b)
	}
}
