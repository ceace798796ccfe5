package episode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/envs/ssd"
	"policyevolve/internal/infile"
)

func TestResolveMap(t *testing.T) {
	dir := t.TempDir()
	if _, err := ResolveMap(ssd.Gathering, "large"); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveMap(ssd.Cleanup, "large"); err == nil ||
		!strings.Contains(err.Error(), "neither a built-in cleanup map (default, small) nor a readable file") {
		t.Fatalf("got %v", err)
	}
	path := filepath.Join(dir, "m.txt")
	os.WriteFile(path, []byte("@@@@\n@PA@\n@@@@\n"), 0o644)
	m, err := ResolveMap(ssd.Gathering, path)
	if err != nil || m.Name != path || len(m.Apples) != 1 {
		t.Fatalf("got %+v, %v", m, err)
	}
	// A parse error names the file, line and column.
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("@@@@\n@P.@\n@.?@\n@@@@\n"), 0o644)
	if _, err := ResolveMap(ssd.Gathering, bad); err == nil || !strings.HasPrefix(err.Error(), bad+":3:3: unexpected character '?'") {
		t.Fatalf("error %v does not name %s:3:3", err, bad)
	}
	// Neither a device nor a file too large is read.
	if _, err := ResolveMap(ssd.Gathering, "/dev/zero"); !errors.Is(err, infile.ErrNotRegular) {
		t.Errorf("/dev/zero: got %v", err)
	}
	huge := filepath.Join(dir, "huge.txt")
	os.WriteFile(huge, make([]byte, MaxMapFile+1), 0o644)
	if _, err := ResolveMap(ssd.Gathering, huge); !errors.Is(err, infile.ErrTooLarge) || !strings.Contains(err.Error(), "more than the 1 MiB") {
		t.Errorf("huge: got %v", err)
	}
}
