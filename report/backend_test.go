package report

import (
	"strings"
	"testing"
)

// TestBackendNotes: the run page names the backend that scored the
// champion, and notes a pool whose evaluations mix backends.
func TestBackendNotes(t *testing.T) {
	for _, tc := range []struct {
		backends []string
		want     string // "" for no note
	}{
		{[]string{"native", "native", ""}, ""},
		{[]string{"yaegi", ""}, ""},
		{[]string{"native", "yaegi", "native"}, "mix backends (2 by the native backend, 1 by the yaegi backend)"},
	} {
		var ms []Member
		for _, b := range tc.backends {
			ms = append(ms, Member{Backend: b})
		}
		got := mixedBackends(ms)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%v: note %q, want %q", tc.backends, got, tc.want)
		}
	}
	for b, want := range map[string]string{"": "not recorded", "native": "the native backend", "yaegi": "the yaegi backend"} {
		if got := scoredBy(b); !strings.Contains(got, want) {
			t.Errorf("scoredBy(%q) = %q, want %q", b, got, want)
		}
	}
}
