package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/store"
)

// TestPoolExportVerifiesTheSource: a policy whose source was changed in
// the file (one bit, the JSON still decoding) is not exported: the
// command fails naming the damage, and writes nothing.
func TestPoolExportVerifiesTheSource(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &store.Policy{Source: "package policy\n\n// MARKER-bit-flip-here\n"}
	if err := s.Update(func(tx *store.Tx) error { _, err := tx.PutPolicy(p); return err }); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("MARKER"))
	if i < 0 {
		t.Fatal("the source is not in the file")
	}
	data[i] ^= 0x20 // M -> m: still valid JSON
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.go")
	for _, args := range [][]string{{"pool", "export", p.ID[:12], "--store", db}, {"pool", "export", p.ID[:12], "--store", db, "-o", out}} {
		code, stdout, errOut := runCLI(t, context.Background(), args...)
		if code != 1 || stdout != "" || !strings.Contains(errOut, "the store is damaged") || !strings.Contains(errOut, "the source stored is not the policy's") {
			t.Errorf("%v: exit %d, stdout %q, stderr %s", args, code, stdout, errOut)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a damaged source was written")
	}
}
