package main

import (
	"fmt"
	"os"
	"path/filepath"

	"policyevolve/store"
)

// storeOptions select the store file.
type storeOptions struct{ path string }

func (o *storeOptions) register(fs *flagSet) {
	def := os.Getenv("POLICYEVOLVE_STORE")
	if def == "" {
		def = store.DefaultPath
	}
	fs.StringVar(&o.path, "store", def, "store file (default: $POLICYEVOLVE_STORE, else ./"+store.DefaultPath+")")
}

// How a command opens the store.
type storeMode int

const (
	readStore   storeMode = iota // inspect only
	writeStore                   // change an existing store
	createStore                  // change, creating the store if there is none
)

// open opens the store; only createStore commands may create one.
func (o *storeOptions) open(mode storeMode) (*store.Store, error) {
	if st, err := os.Stat(o.path); err == nil && st.IsDir() {
		return nil, usagef("--store %s is a directory: name the store's file (e.g. %s)", o.path, filepath.Join(o.path, store.DefaultPath))
	}
	if dir := filepath.Dir(o.path); mode == createStore && !isDirectory(dir) {
		if _, err := os.Stat(o.path); err != nil {
			return nil, usagef("--store %s: the directory %s does not exist (create it with mkdir -p %s, or name a store in an existing directory)", o.path, dir, dir)
		}
	}
	if mode != createStore {
		if _, err := os.Stat(o.path); err != nil {
			return nil, fmt.Errorf("no store at %s (create one with %s evolve or %s pool import, or pass --store)", o.path, self(), self())
		}
	}
	return store.Open(o.path, store.Options{ReadOnly: mode == readStore})
}

// isDirectory says whether dir is an existing directory.
func isDirectory(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// resolve turns an id prefix into a full policy id.
func resolve(s *store.Store, prefix string) (string, error) {
	var id string
	err := s.View(func(tx *store.Tx) (err error) {
		id, err = tx.ResolvePolicy(prefix)
		return err
	})
	return id, err
}

// findPolicy loads the policy a unique id prefix names.
func findPolicy(tx *store.Tx, prefix string) (*store.Policy, error) {
	id, err := tx.ResolvePolicy(prefix)
	if err != nil {
		return nil, err
	}
	return tx.Policy(id)
}

// storeFlag repeats the --store flag for a printed command, when needed,
// its path quoted for the shell.
func storeFlag(o storeOptions) string {
	if o.path == store.DefaultPath {
		return ""
	}
	return " --store " + shellQuote(o.path)
}

// removeStore removes a store file this command made and the lock files
// beside it.
func removeStore(path string) {
	for _, p := range []string{path, path + ".lock", path + ".gate"} {
		os.Remove(p)
	}
}
