package episode

import (
	"strings"
	"testing"

	"policyevolve/store"
)

func TestStoredQTableThatDoesNotParse(t *testing.T) {
	_, err := BuiltinActor(&store.Policy{ID: "0123456789abcdef", Builtin: QLearnBuiltin, Source: "{}"})
	if err == nil || !strings.Contains(err.Error(), "policy 0123456789ab: not a Q-table file") {
		t.Fatalf("error %v", err)
	}
}
