package grammar

import (
	"context"
	"testing"

	"policyevolve/sandbox"
)

// TestRenderedInYaegiSubset: the offline planner's policies stay inside
// the yaegi backend's subset (the fallback where there is no Go
// toolchain), so none is refused there: 200 genomes covering every
// module, rendered and prepared for the interpreter (no worker runs).
func TestRenderedInYaegiSubset(t *testing.T) {
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Yaegi, CacheDir: testCache})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range coveringGenomes(27, 200) {
		src, err := Render(g)
		if err != nil {
			t.Fatal(err)
		}
		p, err := sb.Compile(context.Background(), src)
		if err != nil {
			t.Fatalf("genome %d (%+v): the yaegi backend refuses it: %v", i, g, err)
		}
		p.Close()
	}
}
