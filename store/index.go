package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Schema 2 adds two indexes, so that a long job reads per iteration what
// is new or what concerns one policy, never a whole bucket:
//
//   - match_log: sequence number (big-endian uint64) → key of a match in
//     matches, one entry each time a match is put, in the order they were
//     put. MatchesSince reads the matches put after a sequence number.
//   - critique_index: policy id NUL critique id (big-endian uint64) →
//     nothing. Critiques(policy) reads a policy's critiques through it.
//
// migrate1to2 fills both from the records of a schema 1 store, in the
// transaction that migrates it.
var (
	bMatchLog      = []byte("match_log")
	bCritiqueIndex = []byte("critique_index")
)

func init() { migrations[1] = migrate1to2 }

func migrate1to2(tx *bolt.Tx) error {
	log, err := tx.CreateBucketIfNotExists(bMatchLog)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bMatches).ForEach(func(k, _ []byte) error { return logMatch(log, k) }); err != nil {
		return fmt.Errorf("log the matches: %w", err)
	}
	index, err := tx.CreateBucketIfNotExists(bCritiqueIndex)
	if err != nil {
		return err
	}
	return each(tx.Bucket(bCritiques), nil, func(k []byte, c *Critique) error {
		return index.Put(critiqueIndexKey(c.Policy, c.ID), nil)
	})
}

// logMatch appends a match's key to the log.
func logMatch(log *bolt.Bucket, key []byte) error {
	n, err := log.NextSequence()
	if err != nil {
		return err
	}
	if log.Get(u64(n)) != nil {
		return damaged("the match log's sequence (%d) is behind its entries: the next entry would overwrite one", n)
	}
	return log.Put(u64(n), key)
}

func critiqueIndexKey(policy string, id uint64) []byte {
	return append([]byte(policy+"\x00"), u64(id)...)
}

// MatchesSince calls fn with each match put after the log's sequence
// number after (0: from the first), in the order they were put, with its
// sequence number; a match put twice comes twice, as it is now. It returns
// the last sequence number read (after, when there is nothing new). A
// store opened read-only before its migration has no log: every match
// comes once, with sequence number 0.
func (tx *Tx) MatchesSince(after uint64, fn func(seq uint64, m *Match) error) (uint64, error) {
	log := tx.b.Bucket(bMatchLog)
	if log == nil {
		return 0, each(tx.b.Bucket(bMatches), nil, func(_ []byte, m *Match) error { return fn(0, m) })
	}
	matches := tx.b.Bucket(bMatches)
	last := after
	c := log.Cursor()
	for k, key := c.Seek(u64(after + 1)); k != nil; k, key = c.Next() {
		if len(k) != 8 {
			return last, damaged("match_log: key %x is not a sequence number", k)
		}
		last = binary.BigEndian.Uint64(k)
		m := &Match{}
		if err := get(matches, key, m); err != nil {
			return last, damaged("match_log: entry %d names match %q: %v", last, key, err)
		}
		if err := fn(last, m); err != nil {
			return last, err
		}
	}
	return last, nil
}

// checkIndexes verifies the two indexes against the records (Check).
func checkIndexes(tx *bolt.Tx, add func(format string, args ...any)) {
	if log := tx.Bucket(bMatchLog); log != nil {
		logged := map[string]bool{}
		log.ForEach(func(k, key []byte) error {
			if tx.Bucket(bMatches).Get(key) == nil {
				add("match_log: entry %x names no match (%q)", k, key)
			}
			logged[string(key)] = true
			return nil
		})
		tx.Bucket(bMatches).ForEach(func(k, _ []byte) error {
			if !logged[string(k)] {
				add("match_log: match %q is not in the log", k)
			}
			return nil
		})
	}
	if index := tx.Bucket(bCritiqueIndex); index != nil {
		index.ForEach(func(k, _ []byte) error {
			i := bytes.IndexByte(k, 0)
			var c Critique
			if i < 0 || len(k) != i+9 || get(tx.Bucket(bCritiques), k[i+1:], &c) != nil || c.Policy != string(k[:i]) {
				add("critique_index: entry %q names no critique of its policy", k)
			}
			return nil
		})
		tx.Bucket(bCritiques).ForEach(func(k, v []byte) error {
			var c Critique
			if get(tx.Bucket(bCritiques), k, &c) == nil && index.Get(critiqueIndexKey(c.Policy, c.ID)) == nil {
				add("critique_index: critique %d of %.12s is not indexed", c.ID, c.Policy)
			}
			return nil
		})
	}
}
