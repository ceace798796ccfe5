package live

import (
	"encoding/binary"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"policyevolve/store"

	bolt "go.etcd.io/bbolt"
)

// TestStoreDamagedWhileServing: a page of the store damaged while serve
// runs (a branch page made to point at itself, which would send bbolt
// into a recursion that ends the process) is refused before it is read:
// the server answers an error page naming the damage, and goes on
// answering.
func TestStoreDamagedWhileServing(t *testing.T) {
	// Not storetest's store, which checks the store when the test ends:
	// this one is left damaged on purpose.
	path := filepath.Join(t.TempDir(), "s.db")
	w, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(ro, Options{Poll: time.Hour})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Close(); hs.Close() })
	ts := &testServer{s: w, srv: srv, url: hs.URL}
	for i := range 60 {
		putPolicy(t, ts.s, fmt.Sprintf("package policy // %d\n// %s\n", i, strings.Repeat("x", 3000)))
	}
	ts.srv.watch.check()
	if res, _ := get(t, request(t, "GET", ts.url+"/pools/")); res.StatusCode != 200 {
		t.Fatal(res.Status)
	}
	db, err := bolt.Open(ts.s.Path(), 0, &bolt.Options{ReadOnly: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var root uint64
	db.View(func(tx *bolt.Tx) error { root = uint64(tx.Bucket([]byte("policies")).Root()); return nil })
	db.Close()
	f, err := os.OpenFile(ts.s.Path(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], root)
	if _, err := f.WriteAt(b[:], int64(root)*4096+16+8); err != nil { // the first child of a branch page: itself
		t.Fatal(err)
	}
	f.Close()
	ts.srv.watch.check()
	for _, page := range []string{"/pools/", "/", "/pools/"} {
		res, body := get(t, request(t, "GET", ts.url+page))
		if res.StatusCode != 500 || !strings.Contains(body, "The store is damaged") || !strings.Contains(body, "reached twice") {
			t.Errorf("%s: %s\n%s", page, res.Status, body)
		}
	}
}
