package evolve

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"policyevolve/store"
)

// TestResumeSchema1Run: a run stopped in a store that the code before
// schema 2 wrote (store/testdata/schema1.db.gz, run-1 stopped after 2 of
// its 3 iterations) resumes: the store is migrated when the job opens it,
// and the run finishes its last iteration, with a champion, on a store
// whose check is clean.
func TestResumeSchema1Run(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "store", "testdata", "schema1.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "schema1.db")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
	out.Close()
	j := newJobAt(t, path, JobConfig{})
	j.RunID = "run-1"
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusDone || run.Iterations != 3 || run.Champion == "" {
		t.Fatalf("the resumed run: %+v", run)
	}
	var its []store.Iteration
	if err := j.Store.View(func(tx *store.Tx) (err error) {
		its, err = tx.Iterations(run.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(its) != 3 || !its[2].Done || len(its[2].Candidates) != 2 {
		t.Fatalf("iterations after the resume: %+v", its)
	}
}
