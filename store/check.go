package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Check verifies the store: its pages first (walkFile: the meta pages,
// the tree of buckets, the freelist, read without bbolt, so that a
// damaged file is described rather than crashing the check), then, when
// they are sound, the invariants of the records — every record decodes
// and sits under its own key, policies are content-addressed, and every
// evaluation, match, pool member and rating refers to a stored policy
// (and every rating to a member of its pool). It returns the problems
// found, none for a sound store; it never refuses a file for being
// damaged (its error is for a file it cannot read, or a busy lock).
func (s *Store) Check() (problems []string, err error) {
	err = s.locked(false, func() error {
		if problems, err = walkFile(s.path); err != nil || len(problems) > 0 {
			return err
		}
		var d *DamageError
		if err := checkAdvance(s.path); errors.As(err, &d) {
			problems = append(problems, d.Problem)
		}
		err := s.guarded(func() error {
			return s.withDB(true, func(db *bolt.DB) error {
				return db.View(func(tx *bolt.Tx) error {
					// A newer schema is not damage: this program cannot
					// judge the store, and says why.
					if err := checkSchema(tx, true, false); errors.Is(err, ErrNewerSchema) {
						return err
					}
					problems = append(problems, checkTx(tx)...)
					return nil
				})
			})
		})
		if errors.As(err, &d) {
			problems = append(problems, d.Problem)
			return nil
		}
		return err
	})
	return problems, err
}

// CheckFile is Check for the store at path, which need not open: a file
// that is not a store, or a damaged one, has its problems listed.
func CheckFile(path string, opt Options) ([]string, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("check store: %w", err)
	}
	s := &Store{path: path, opt: Options{Timeout: opt.Timeout, ReadOnly: true}}
	return s.Check()
}

// maxProblems caps the problems Check lists.
const maxProblems = 200

func checkTx(tx *bolt.Tx) []string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < maxProblems {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	if err := checkSchema(tx, true, false); err != nil {
		add("schema: %v", err)
		return out
	}
	// The buckets that came later may be missing from an older store; a
	// writable open adds them.
	for _, name := range allBuckets[:schema1Buckets] {
		if tx.Bucket(name) == nil {
			add("missing bucket %s", name)
		}
	}
	if v := binary.BigEndian.Uint64(tx.Bucket(bMeta).Get(kSchema)); v >= 2 {
		for _, name := range [][]byte{bMatchLog, bCritiqueIndex} {
			if tx.Bucket(name) == nil {
				add("missing bucket %s (schema %d)", name, v)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	// Appending buckets give each record the next number of the bucket's
	// sequence: a sequence behind the last record would overwrite it.
	for _, name := range [][]byte{bLLMCalls, bCritiques, bMatchLog} {
		if b := tx.Bucket(name); b != nil {
			if k, _ := b.Cursor().Last(); len(k) == 8 && binary.BigEndian.Uint64(k) > b.Sequence() {
				add("bucket %s: its sequence %d is behind its last record %d (the next record would overwrite one)", name, b.Sequence(), binary.BigEndian.Uint64(k))
			}
		}
	}
	policies := map[string]bool{}
	decode := func(bucket string, k, v []byte, dst any) bool {
		if err := json.Unmarshal(v, dst); err != nil {
			add("%s: record %q does not decode: %v", bucket, k, err)
			return false
		}
		return true
	}
	tx.Bucket(bPolicies).ForEach(func(k, v []byte) error {
		var p Policy
		if !decode("policies", k, v, &p) {
			return nil
		}
		switch {
		case p.ID != string(k):
			add("policies: record under %.12s has id %.12s", k, p.ID)
		case SourceID(p.Source) != p.ID:
			add("policies: %.12s is not the SHA-256 of its source", p.ID)
		}
		policies[string(k)] = true
		return nil
	})
	known := func(bucket, what, id string) {
		if !policies[id] {
			add("%s: %s refers to unknown policy %.12s", bucket, what, id)
		}
	}
	tx.Bucket(bEvaluations).ForEach(func(k, v []byte) error {
		var e Evaluation
		if !decode("evaluations", k, v, &e) {
			return nil
		}
		known("evaluations", "an evaluation", e.Policy)
		key := evalKey(e.Policy, e.Env, e.Seeds)
		if e.Against != "" {
			known("evaluations", "an invasion's residents", e.Against)
			key = invasionKey(e.Policy, e.Env, e.Seeds, e.Against, e.K)
		}
		if string(key) != string(k) {
			add("evaluations: record under %q does not match its key", k)
		}
		if len(e.PerSeed) > len(e.Seeds) {
			add("evaluations: %.12s on %s has %d seed results for %d seeds", e.Policy, e.Env, len(e.PerSeed), len(e.Seeds))
		}
		return nil
	})
	tx.Bucket(bMatches).ForEach(func(k, v []byte) error {
		var m Match
		if !decode("matches", k, v, &m) {
			return nil
		}
		known("matches", "a match", m.A)
		known("matches", "a match", m.B)
		if m.Outcome != 0 && m.Outcome != 0.5 && m.Outcome != 1 {
			add("matches: %q has outcome %v (want 0, 0.5 or 1)", k, m.Outcome)
		}
		if string(matchKey(m.A, m.B, m.Env, m.Seed)) != string(k) {
			add("matches: record under %q does not match its key", k)
		}
		return nil
	})
	members := map[string]bool{}
	tx.Bucket(bPools).ForEach(func(pool, v []byte) error {
		if v != nil {
			add("pools: stray record %q outside any pool", pool)
			return nil
		}
		tx.Bucket(bPools).Bucket(pool).ForEach(func(k, v []byte) error {
			var m Member
			if !decode("pools", k, v, &m) {
				return nil
			}
			if m.Policy != string(k) || m.Pool != string(pool) {
				add("pools: member record under %s/%.12s says %s/%.12s", pool, k, m.Pool, m.Policy)
			}
			known("pools", "pool "+string(pool), string(k))
			members[string(pool)+"\x00"+string(k)] = true
			return nil
		})
		return nil
	})
	tx.Bucket(bRatings).ForEach(func(pool, v []byte) error {
		if v != nil {
			add("ratings: stray record %q outside any pool", pool)
			return nil
		}
		tx.Bucket(bRatings).Bucket(pool).ForEach(func(k, v []byte) error {
			var r Rating
			if !decode("ratings", k, v, &r) {
				return nil
			}
			if r.Policy != string(k) || r.Pool != string(pool) {
				add("ratings: record under %s/%.12s says %s/%.12s", pool, k, r.Pool, r.Policy)
			}
			if !members[string(pool)+"\x00"+string(k)] {
				add("ratings: %.12s is rated in %s but not a member of it", k, pool)
			}
			if r.Games != r.Wins+r.Draws+r.Losses {
				add("ratings: %.12s in %s: %d games but %d+%d+%d results", k, pool, r.Games, r.Wins, r.Draws, r.Losses)
			}
			return nil
		})
		return nil
	})
	tx.Bucket(bRuns).ForEach(func(k, v []byte) error {
		var r Run
		if decode("runs", k, v, &r) && r.ID != string(k) {
			add("runs: record under %s has id %s", k, r.ID)
		}
		return nil
	})
	seqKey := func(bucket string, k []byte, id uint64) {
		if len(k) != 8 || binary.BigEndian.Uint64(k) != id {
			add("%s: record under %x has id %d", bucket, k, id)
		}
	}
	tx.Bucket(bCritiques).ForEach(func(k, v []byte) error {
		var c Critique
		if decode("critiques", k, v, &c) {
			seqKey("critiques", k, c.ID)
			known("critiques", "a critique", c.Policy)
		}
		return nil
	})
	tx.Bucket(bLLMCalls).ForEach(func(k, v []byte) error {
		var c LLMCall
		if decode("llm_calls", k, v, &c) {
			seqKey("llm_calls", k, c.ID)
		}
		return nil
	})
	if keys := tx.Bucket(bLLMKeys); keys != nil {
		keys.ForEach(func(k, v []byte) error {
			var c LLMCall
			switch run, key, _ := strings.Cut(string(k), "\x00"); {
			case len(v) != 8:
				add("llm_keys: entry %q does not hold a call id", k)
			case !decode("llm_calls", v, tx.Bucket(bLLMCalls).Get(v), &c):
			case c.Key != key || c.Run != run || c.Error != "":
				add("llm_keys: entry %q points at call %d of run %q, key %.12s, error %q", k, c.ID, c.Run, c.Key, c.Error)
			}
			return nil
		})
	}
	if its := tx.Bucket(bIterations); its != nil {
		its.ForEach(func(k, v []byte) error {
			var it Iteration
			if !decode("iterations", k, v, &it) {
				return nil
			}
			if string(k) != string(iterationKey(it.Run, it.Index)) {
				add("iterations: record under %q is iteration %d of run %s", k, it.Index, it.Run)
			}
			if tx.Bucket(bRuns).Get([]byte(it.Run)) == nil {
				add("iterations: iteration %d of unknown run %s", it.Index, it.Run)
			}
			if it.Champion != "" {
				known("iterations", "a champion", it.Champion)
			}
			for _, c := range it.Candidates {
				if c.Policy != "" {
					known("iterations", "a candidate", c.Policy)
				}
			}
			return nil
		})
	}
	if ads := tx.Bucket(bAdmissions); ads != nil {
		ads.ForEach(func(k, v []byte) error {
			var a Admission
			if decode("admissions", k, v, &a) && string(k) != string(admissionKey(a.Policy, a.Game)) {
				add("admissions: record under %q is about %.12s in %s", k, a.Policy, a.Game)
			}
			return nil
		})
	}
	if cmps := tx.Bucket(bComparisons); cmps != nil {
		cmps.ForEach(func(k, v []byte) error {
			var c Comparison
			if decode("comparisons", k, v, &c) && c.ID != string(k) {
				add("comparisons: record under %s has id %s", k, c.ID)
			}
			return nil
		})
	}
	checkIndexes(tx, add)
	if len(out) == maxProblems {
		out = append(out, "… more problems not listed")
	}
	return out
}

// Compact rewrites the store without its free pages (bbolt files never
// shrink) and returns the sizes before and after. It holds the store's
// lock throughout; the compacted copy is checked, then renamed over the
// original, so a failure leaves the original as it was.
func (s *Store) Compact() (before, after int64, err error) {
	if s.opt.ReadOnly {
		return 0, 0, fmt.Errorf("store %s is open read-only", s.path)
	}
	err = s.locked(true, func() error {
		// A damaged store is not compacted: bolt.Compact copies what it
		// can read, and the copy would replace the evidence.
		if problems, err := walkFile(s.path); err != nil {
			return err
		} else if len(problems) > 0 {
			return &DamageError{Path: s.path, Problem: problems[0]}
		}
		return s.guarded(func() error {
			// Read-only: a store whose writes would not last (see
			// advanceProblem) is compacted too, which is how it is mended.
			return s.withDB(true, func(src *bolt.DB) (err error) {
				err = src.View(func(tx *bolt.Tx) error {
					if problems := checkTx(tx); len(problems) > 0 {
						return damaged("%s", problems[0])
					}
					return nil
				})
				if err != nil {
					return err
				}
				before, after, err = s.compact(src)
				return err
			})
		})
	})
	if err != nil {
		return 0, 0, fmt.Errorf("compact: %w", err)
	}
	return before, after, nil
}

// compact writes a compacted copy of src and renames it over the store.
func (s *Store) compact(src *bolt.DB) (before, after int64, err error) {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(s.path); err == nil {
		before, mode = st.Size(), st.Mode().Perm()
	}
	tmp := s.path + ".compact"
	os.Remove(tmp)
	dst, err := bolt.Open(tmp, mode, &bolt.Options{Timeout: s.opt.Timeout})
	if err != nil {
		return 0, 0, err
	}
	err = bolt.Compact(dst, src, 64<<20)
	if err == nil {
		err = dst.View(func(tx *bolt.Tx) error {
			if problems := checkTx(tx); len(problems) > 0 {
				return fmt.Errorf("the compacted copy fails its check: %s", strings.Join(problems, "; "))
			}
			return nil
		})
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if problems, werr := walkFile(tmp); werr != nil || len(problems) > 0 {
			err = fmt.Errorf("the compacted copy fails its check: %v%s", werr, strings.Join(problems, "; "))
		}
	}
	if err == nil {
		err = os.Chmod(tmp, mode) // bolt.Open's mode is filtered by the umask
	}
	if err == nil {
		err = os.Rename(tmp, s.path)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, 0, err
	}
	// Make the rename itself durable before anyone commits to the new file.
	syncDir(s.path)
	if st, err := os.Stat(s.path); err == nil {
		after = st.Size()
	}
	return before, after, nil
}
