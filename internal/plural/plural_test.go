package plural

import "testing"

func TestN(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "run", "1 run"},
		{0, "run", "0 runs"},
		{2, "run", "2 runs"},
		{1, "planner call", "1 planner call"},
		{12, "planner call", "12 planner calls"},
		{1, "policy", "1 policy"},
		{3, "policy", "3 policies"},
		{2, "day", "2 days"},
		{2, "match", "2 matches"},
		{5, "LLM call", "5 LLM calls"},
		{4, "iteration", "4 iterations"},
	} {
		if got := N(c.n, c.noun); got != c.want {
			t.Errorf("N(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
