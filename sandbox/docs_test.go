package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDocumentedLimits: the CPU limits the documentation states for
// workers are those workers get (the README once said 60 s and 600 s of
// RLIMIT_CPU, where workers got 240 s and 2400 s).
func TestDocumentedLimits(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "README.md"))
	var text string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			text += " " + strings.Join(strings.Fields(string(b)), " ")
		}
	}
	got := func(re string) []int {
		m := regexp.MustCompile(re).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %q in the documentation (%v)", re, files)
		}
		var out []int
		for _, s := range m[1:] {
			n, _ := strconv.Atoi(s)
			out = append(out, n)
		}
		return out
	}
	rlimit := got("`RLIMIT_CPU`, (\\d+) s native, (\\d+) s yaegi")
	episode := got("`sandbox.Config.EpisodeCPU`, (\\d+) s native, (\\d+) s yaegi")
	for i, be := range []Backend{Native, Yaegi} {
		sb := newSandbox(t, be)
		if want := int(sb.limits(be).CPUSeconds); rlimit[i] != want {
			t.Errorf("%s: the documentation says RLIMIT_CPU %d s, workers get %d s", be, rlimit[i], want)
		}
		if want := int(sb.cfg.EpisodeCPU.Seconds()); episode[i] != want {
			t.Errorf("%s: the documentation says an episode's CPU budget is %d s, it is %d s", be, episode[i], want)
		}
	}
}
