package store

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SourceID is a policy's content address: the hex SHA-256 of its source.
func SourceID(source string) string {
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:])
}

func put(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}

func get(b *bolt.Bucket, key []byte, v any) error {
	data := b.Get(key)
	if data == nil {
		return ErrNotFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return damaged("record %q does not decode: %v", key, err)
	}
	return nil
}

// each decodes every record of a bucket (optionally under a key prefix)
// into a fresh T and calls fn with it.
func each[T any](b *bolt.Bucket, prefix []byte, fn func(k []byte, v *T) error) error {
	c := b.Cursor()
	for k, data := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, data = c.Next() {
		if data == nil {
			continue // a nested bucket
		}
		v := new(T)
		if err := json.Unmarshal(data, v); err != nil {
			return damaged("record %q does not decode: %v", k, err)
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Schema is the store's schema version (SchemaVersion, or older for a
// store opened read-only before its migration).
func (tx *Tx) Schema() uint64 {
	return binary.BigEndian.Uint64(tx.b.Bucket(bMeta).Get(kSchema))
}

// ---- policies

// PutPolicy stores a policy under its content address (computed from
// Source when ID is empty, checked otherwise). A policy already stored is
// kept as it is, first origin included; created says whether this call
// added it.
func (tx *Tx) PutPolicy(p *Policy) (created bool, err error) {
	id := SourceID(p.Source)
	if p.ID == "" {
		p.ID = id
	} else if p.ID != id {
		return false, fmt.Errorf("put policy: id %s is not the SHA-256 of its source (%s)", p.ID, id)
	}
	b := tx.b.Bucket(bPolicies)
	if b.Get([]byte(p.ID)) != nil {
		return false, nil
	}
	if p.Created.IsZero() {
		p.Created = time.Now().UTC()
	}
	return true, put(b, []byte(p.ID), p)
}

// Policy returns a policy by full id.
//
// The policy's source is checked against its id (the SHA-256 of the
// source): a record whose source was changed in the file (a bit flipped
// inside sound pages) is a DamageError, never a source handed on as the
// policy's — to be exported, played or shown.
func (tx *Tx) Policy(id string) (*Policy, error) {
	p := &Policy{}
	if err := get(tx.b.Bucket(bPolicies), []byte(id), p); err != nil {
		return nil, fmt.Errorf("policy %.12s: %w", id, err)
	}
	if sum := SourceID(p.Source); sum != id || p.ID != id {
		return nil, damaged("policy %.12s: the source stored is not the policy's (its SHA-256 is %.12s, the record's id %.12s): the record was changed in the file", id, sum, p.ID)
	}
	return p, nil
}

// Policies returns every policy, in id order.
func (tx *Tx) Policies() ([]Policy, error) {
	var out []Policy
	err := each(tx.b.Bucket(bPolicies), nil, func(_ []byte, p *Policy) error {
		out = append(out, *p)
		return nil
	})
	return out, err
}

// ResolvePolicy turns a unique prefix of a policy id (as git does with
// commits) into the full id.
func (tx *Tx) ResolvePolicy(prefix string) (string, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	if prefix == "" {
		return "", fmt.Errorf("empty policy id: %w", ErrNotFound)
	}
	c := tx.b.Bucket(bPolicies).Cursor()
	var found []string
	for k, _ := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, _ = c.Next() {
		found = append(found, string(k))
		if len(found) > 5 {
			break
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("policy %s: %w", prefix, ErrNotFound)
	case 1:
		return found[0], nil
	}
	short := make([]string, len(found))
	for i, f := range found {
		short[i] = f[:min(len(f), len(prefix)+4)]
	}
	return "", fmt.Errorf("policy %s: %w: matches %s", prefix, ErrAmbiguous, strings.Join(short, ", "))
}

// ---- evaluations

func seedsKey(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ",")
}

func evalKey(policy string, env EnvConfig, seeds []uint64) []byte {
	return []byte(policy + "\x00" + env.Key() + "\x00" + seedsKey(seeds))
}

// invasionKey is an invasion evaluation's key: evalKey's, then the
// residents' policy and the number of invaders, so that it never meets a
// self-play evaluation's.
func invasionKey(policy string, env EnvConfig, seeds []uint64, against string, k int) []byte {
	return append(evalKey(policy, env, seeds), fmt.Sprintf("\x00vs\x00%s\x00%d", against, k)...)
}

// PutEvaluation stores an evaluation; the policy must exist.
func (tx *Tx) PutEvaluation(e *Evaluation) error {
	if tx.b.Bucket(bPolicies).Get([]byte(e.Policy)) == nil {
		return fmt.Errorf("put evaluation: policy %.12s: %w", e.Policy, ErrNotFound)
	}
	if e.Created.IsZero() {
		e.Created = time.Now().UTC()
	}
	if e.Against != "" {
		if tx.b.Bucket(bPolicies).Get([]byte(e.Against)) == nil {
			return fmt.Errorf("put evaluation: residents' policy %.12s: %w", e.Against, ErrNotFound)
		}
		return put(tx.b.Bucket(bEvaluations), invasionKey(e.Policy, e.Env, e.Seeds, e.Against, e.K), e)
	}
	return put(tx.b.Bucket(bEvaluations), evalKey(e.Policy, e.Env, e.Seeds), e)
}

// InvasionEvaluation returns the invasion evaluation of policy as k
// invaders among residents running against on env over exactly these
// seeds, or ErrNotFound.
func (tx *Tx) InvasionEvaluation(policy string, env EnvConfig, seeds []uint64, against string, k int) (*Evaluation, error) {
	e := &Evaluation{}
	if err := get(tx.b.Bucket(bEvaluations), invasionKey(policy, env, seeds, against, k), e); err != nil {
		return nil, err
	}
	return e, nil
}

// Evaluation returns the evaluation of policy on env over exactly these
// seeds, or ErrNotFound.
func (tx *Tx) Evaluation(policy string, env EnvConfig, seeds []uint64) (*Evaluation, error) {
	e := &Evaluation{}
	if err := get(tx.b.Bucket(bEvaluations), evalKey(policy, env, seeds), e); err != nil {
		return nil, err
	}
	return e, nil
}

// EvaluationsOf returns every self-play evaluation of a policy (its
// invasion evaluations are InvasionsOf's).
func (tx *Tx) EvaluationsOf(policy string) ([]Evaluation, error) {
	return tx.evaluationsOf(policy, false)
}

// InvasionsOf returns every invasion evaluation of a policy (as the
// invader; Evaluation.Against).
func (tx *Tx) InvasionsOf(policy string) ([]Evaluation, error) {
	return tx.evaluationsOf(policy, true)
}

func (tx *Tx) evaluationsOf(policy string, invasions bool) ([]Evaluation, error) {
	var out []Evaluation
	err := each(tx.b.Bucket(bEvaluations), []byte(policy+"\x00"), func(_ []byte, e *Evaluation) error {
		if (e.Against != "") == invasions {
			out = append(out, *e)
		}
		return nil
	})
	return out, err
}

// ---- matches

func matchKey(a, b string, env EnvConfig, seed uint64) []byte {
	return []byte(fmt.Sprintf("%s\x00%s\x00%s\x00%020d", a, b, env.Key(), seed))
}

// PutMatch stores a match; both policies must exist.
func (tx *Tx) PutMatch(m *Match) error {
	for _, id := range []string{m.A, m.B} {
		if tx.b.Bucket(bPolicies).Get([]byte(id)) == nil {
			return fmt.Errorf("put match: policy %.12s: %w", id, ErrNotFound)
		}
	}
	if m.Created.IsZero() {
		m.Created = time.Now().UTC()
	}
	key := matchKey(m.A, m.B, m.Env, m.Seed)
	if err := put(tx.b.Bucket(bMatches), key, m); err != nil {
		return err
	}
	return logMatch(tx.b.Bucket(bMatchLog), key)
}

// Match returns the match of A against B on env and seed, or ErrNotFound.
func (tx *Tx) Match(a, b string, env EnvConfig, seed uint64) (*Match, error) {
	m := &Match{}
	if err := get(tx.b.Bucket(bMatches), matchKey(a, b, env, seed), m); err != nil {
		return nil, err
	}
	return m, nil
}

// MatchesOf returns every match a policy played, on either side.
func (tx *Tx) MatchesOf(policy string) ([]Match, error) {
	var out []Match
	err := each(tx.b.Bucket(bMatches), nil, func(_ []byte, m *Match) error {
		if m.A == policy || m.B == policy {
			out = append(out, *m)
		}
		return nil
	})
	return out, err
}

// ---- pools and ratings

func nested(tx *bolt.Tx, parent []byte, pool string, create bool) (*bolt.Bucket, error) {
	p := tx.Bucket(parent)
	if create {
		return p.CreateBucketIfNotExists([]byte(pool))
	}
	return p.Bucket([]byte(pool)), nil
}

// AddMember puts a policy into a pool (no-op if it is there).
func (tx *Tx) AddMember(m *Member) error {
	if tx.b.Bucket(bPolicies).Get([]byte(m.Policy)) == nil {
		return fmt.Errorf("add to pool %s: policy %.12s: %w", m.Pool, m.Policy, ErrNotFound)
	}
	b, err := nested(tx.b, bPools, m.Pool, true)
	if err != nil {
		return err
	}
	if b.Get([]byte(m.Policy)) != nil {
		return nil
	}
	if m.Added.IsZero() {
		m.Added = time.Now().UTC()
	}
	return put(b, []byte(m.Policy), m)
}

// RemoveMember takes a policy out of a pool, with its rating there.
func (tx *Tx) RemoveMember(pool, policy string) error {
	b, _ := nested(tx.b, bPools, pool, false)
	if b == nil || b.Get([]byte(policy)) == nil {
		return fmt.Errorf("pool %s: policy %.12s: %w", pool, policy, ErrNotFound)
	}
	if err := b.Delete([]byte(policy)); err != nil {
		return err
	}
	if r, _ := nested(tx.b, bRatings, pool, false); r != nil {
		return r.Delete([]byte(policy))
	}
	return nil
}

// Members returns a pool's members, in id order (none for an unknown pool).
func (tx *Tx) Members(pool string) ([]Member, error) {
	b, _ := nested(tx.b, bPools, pool, false)
	if b == nil {
		return nil, nil
	}
	var out []Member
	err := each(b, nil, func(_ []byte, m *Member) error {
		out = append(out, *m)
		return nil
	})
	return out, err
}

// Pools returns the names of every pool, sorted.
func (tx *Tx) Pools() ([]string, error) {
	var out []string
	err := tx.b.Bucket(bPools).ForEach(func(k, v []byte) error {
		if v == nil {
			out = append(out, string(k))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// InPool says whether a policy is a member of a pool.
func (tx *Tx) InPool(pool, policy string) bool {
	b, _ := nested(tx.b, bPools, pool, false)
	return b != nil && b.Get([]byte(policy)) != nil
}

// PoolsOf returns the pools a policy belongs to.
func (tx *Tx) PoolsOf(policy string) ([]string, error) {
	pools, err := tx.Pools()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pools {
		if b, _ := nested(tx.b, bPools, p, false); b != nil && b.Get([]byte(policy)) != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// PutRating stores a policy's rating in a pool, of which it must be a
// member.
func (tx *Tx) PutRating(r *Rating) error {
	if p, _ := nested(tx.b, bPools, r.Pool, false); p == nil || p.Get([]byte(r.Policy)) == nil {
		return fmt.Errorf("rate %.12s in %s: not a member: %w", r.Policy, r.Pool, ErrNotFound)
	}
	if r.Games != r.Wins+r.Draws+r.Losses {
		return fmt.Errorf("rate %.12s in %s: %d games but %d+%d+%d results", r.Policy, r.Pool, r.Games, r.Wins, r.Draws, r.Losses)
	}
	b, err := nested(tx.b, bRatings, r.Pool, true)
	if err != nil {
		return err
	}
	return put(b, []byte(r.Policy), r)
}

// Rating returns a policy's rating in a pool, or ErrNotFound.
func (tx *Tx) Rating(pool, policy string) (*Rating, error) {
	b, _ := nested(tx.b, bRatings, pool, false)
	if b == nil {
		return nil, ErrNotFound
	}
	r := &Rating{}
	if err := get(b, []byte(policy), r); err != nil {
		return nil, err
	}
	return r, nil
}

// Ratings returns every rating in a pool.
func (tx *Tx) Ratings(pool string) ([]Rating, error) {
	b, _ := nested(tx.b, bRatings, pool, false)
	if b == nil {
		return nil, nil
	}
	var out []Rating
	err := each(b, nil, func(_ []byte, r *Rating) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// ---- runs, critiques, LLM calls

// CreateRun stores a new run with a fresh id ("run-N") and returns it.
func (tx *Tx) CreateRun(r *Run) error {
	b := tx.b.Bucket(bRuns)
	n, err := b.NextSequence()
	if err != nil {
		return err
	}
	r.ID = fmt.Sprintf("run-%d", n)
	now := time.Now().UTC()
	if r.Started.IsZero() {
		r.Started = now
	}
	r.Updated = now
	return put(b, []byte(r.ID), r)
}

// PutRun updates a run.
func (tx *Tx) PutRun(r *Run) error {
	b := tx.b.Bucket(bRuns)
	if b.Get([]byte(r.ID)) == nil {
		return fmt.Errorf("run %s: %w", r.ID, ErrNotFound)
	}
	r.Updated = time.Now().UTC()
	return put(b, []byte(r.ID), r)
}

// Run returns a run by id.
func (tx *Tx) Run(id string) (*Run, error) {
	r := &Run{}
	if err := get(tx.b.Bucket(bRuns), []byte(id), r); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	return r, nil
}

// Runs returns every run in the order they were created: run-1, run-2,
// …, run-9, run-10 (by the number in the id, not as the keys sort as
// strings), the newest last. An id without a number (none is made so)
// sorts after the numbered ones, by name.
func (tx *Tx) Runs() ([]Run, error) {
	var out []Run
	err := each(tx.b.Bucket(bRuns), nil, func(_ []byte, r *Run) error {
		out = append(out, *r)
		return nil
	})
	slices.SortStableFunc(out, func(a, b Run) int { return CompareRunIDs(a.ID, b.ID) })
	return out, err
}

// CompareRunIDs orders run ids by creation: by the number after "run-",
// so run-9 comes before run-10; ids without one after those, by name.
func CompareRunIDs(a, b string) int {
	na, oka := runNumber(a)
	nb, okb := runNumber(b)
	switch {
	case oka && okb:
		return cmp.Compare(na, nb)
	case oka:
		return -1
	case okb:
		return 1
	}
	return strings.Compare(a, b)
}

func runNumber(id string) (uint64, bool) {
	s, ok := strings.CutPrefix(id, "run-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func appendSeq(b *bolt.Bucket, setID func(uint64), v any) error {
	n, err := b.NextSequence()
	if err != nil {
		return err
	}
	if b.Get(u64(n)) != nil {
		return damaged("a bucket's sequence (%d) is behind its records: the next record would overwrite one", n)
	}
	setID(n)
	return put(b, u64(n), v)
}

// AddCritique appends a critique and sets its id. The policy must be in
// the store, and Diagnostics, when set, valid JSON.
func (tx *Tx) AddCritique(c *Critique) error {
	if tx.b.Bucket(bPolicies).Get([]byte(c.Policy)) == nil {
		return fmt.Errorf("add critique: policy %.12s: %w", c.Policy, ErrNotFound)
	}
	if len(c.Diagnostics) > 0 && !json.Valid(c.Diagnostics) {
		return fmt.Errorf("add critique of %.12s: diagnostics are not valid JSON", c.Policy)
	}
	if c.Created.IsZero() {
		c.Created = time.Now().UTC()
	}
	if err := appendSeq(tx.b.Bucket(bCritiques), func(n uint64) { c.ID = n }, c); err != nil {
		return err
	}
	return tx.b.Bucket(bCritiqueIndex).Put(critiqueIndexKey(c.Policy, c.ID), nil)
}

// Critiques returns every critique of a policy ("" for all), in the order
// they were added.
func (tx *Tx) Critiques(policy string) ([]Critique, error) {
	var out []Critique
	if index := tx.b.Bucket(bCritiqueIndex); index != nil && policy != "" {
		prefix := []byte(policy + "\x00")
		c := index.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var r Critique
			if err := get(tx.b.Bucket(bCritiques), k[len(prefix):], &r); err != nil {
				return nil, fmt.Errorf("critique %x of %.12s: %w", k[len(prefix):], policy, err)
			}
			out = append(out, r)
		}
		return out, nil
	}
	err := each(tx.b.Bucket(bCritiques), nil, func(_ []byte, c *Critique) error {
		if policy == "" || c.Policy == policy {
			out = append(out, *c)
		}
		return nil
	})
	return out, err
}

// AddLLMCall appends an LLM call record and sets its id. A successful call
// with a Key becomes the answer LLMCallByKey finds for its run and key
// (the first one stays when the same request is recorded twice).
func (tx *Tx) AddLLMCall(c *LLMCall) error {
	if c.Created.IsZero() {
		c.Created = time.Now().UTC()
	}
	if err := appendSeq(tx.b.Bucket(bLLMCalls), func(n uint64) { c.ID = n }, c); err != nil {
		return err
	}
	if c.Key == "" || c.Error != "" {
		return nil
	}
	keys := tx.b.Bucket(bLLMKeys)
	if keys == nil { // a store opened before the index existed, read-write: initSchema creates it
		return fmt.Errorf("add llm call: the store has no %s bucket", bLLMKeys)
	}
	k := llmKey(c.Run, c.Key)
	if keys.Get(k) != nil {
		return nil
	}
	return keys.Put(k, u64(c.ID))
}

func llmKey(run, key string) []byte { return []byte(run + "\x00" + key) }

// LLMCallByKey returns the successful call recorded in run with this
// request key, or ErrNotFound.
func (tx *Tx) LLMCallByKey(run, key string) (*LLMCall, error) {
	keys := tx.b.Bucket(bLLMKeys)
	if keys == nil {
		return nil, ErrNotFound
	}
	id := keys.Get(llmKey(run, key))
	if id == nil {
		return nil, ErrNotFound
	}
	c := &LLMCall{}
	if err := get(tx.b.Bucket(bLLMCalls), id, c); err != nil {
		return nil, fmt.Errorf("llm call for key %.12s: %w", key, err)
	}
	return c, nil
}

// LLMCall returns a call by id.
func (tx *Tx) LLMCall(id uint64) (*LLMCall, error) {
	c := &LLMCall{}
	if err := get(tx.b.Bucket(bLLMCalls), u64(id), c); err != nil {
		return nil, fmt.Errorf("llm call %d: %w", id, err)
	}
	return c, nil
}

// LLMCallsSince calls fn with each LLM call whose id is above after, in
// the order of their ids (the order they were recorded in), and returns
// the largest id read (after, when there is none).
func (tx *Tx) LLMCallsSince(after uint64, fn func(c *LLMCall) error) (uint64, error) {
	last := after
	c := tx.b.Bucket(bLLMCalls).Cursor()
	for k, data := c.Seek(u64(after + 1)); k != nil; k, data = c.Next() {
		call := &LLMCall{}
		if err := json.Unmarshal(data, call); err != nil {
			return last, damaged("record %q does not decode: %v", k, err)
		}
		if len(k) == 8 {
			last = binary.BigEndian.Uint64(k)
		}
		if err := fn(call); err != nil {
			return last, err
		}
	}
	return last, nil
}

// LLMCalls returns every LLM call of a run ("" for all).
func (tx *Tx) LLMCalls(run string) ([]LLMCall, error) {
	var out []LLMCall
	err := each(tx.b.Bucket(bLLMCalls), nil, func(_ []byte, c *LLMCall) error {
		if run == "" || c.Run == run {
			out = append(out, *c)
		}
		return nil
	})
	return out, err
}

// ---- iterations and admissions (buckets added after schema 1 was
// published: a store opened read-only may lack them, and reads as empty)

func iterationKey(run string, index int) []byte {
	return append([]byte(run+"\x00"), u64(uint64(index))...)
}

// PutIteration stores (or replaces) an iteration of a run.
func (tx *Tx) PutIteration(it *Iteration) error {
	if tx.b.Bucket(bRuns).Get([]byte(it.Run)) == nil {
		return fmt.Errorf("iteration of run %s: %w", it.Run, ErrNotFound)
	}
	return put(tx.b.Bucket(bIterations), iterationKey(it.Run, it.Index), it)
}

// Iteration returns one iteration of a run.
func (tx *Tx) Iteration(run string, index int) (*Iteration, error) {
	b := tx.b.Bucket(bIterations)
	if b == nil {
		return nil, fmt.Errorf("iteration %d of %s: %w", index, run, ErrNotFound)
	}
	it := &Iteration{}
	if err := get(b, iterationKey(run, index), it); err != nil {
		return nil, fmt.Errorf("iteration %d of %s: %w", index, run, err)
	}
	return it, nil
}

// Iterations returns a run's iterations in order.
func (tx *Tx) Iterations(run string) ([]Iteration, error) { return tx.IterationsFrom(run, 0) }

// IterationsFrom returns a run's iterations from index from on, in order.
func (tx *Tx) IterationsFrom(run string, from int) ([]Iteration, error) {
	b := tx.b.Bucket(bIterations)
	if b == nil {
		return nil, nil
	}
	var out []Iteration
	prefix, start := []byte(run+"\x00"), iterationKey(run, from)
	c := b.Cursor()
	for k, data := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, data = c.Next() {
		it := Iteration{}
		if err := json.Unmarshal(data, &it); err != nil {
			return nil, damaged("record %q does not decode: %v", k, err)
		}
		out = append(out, it)
	}
	return out, nil
}

func admissionKey(policy, game string) []byte { return []byte(policy + "\x00" + game) }

// PutAdmission stores an admission verdict (the first one stands: a
// verdict is never made twice).
func (tx *Tx) PutAdmission(a *Admission) error {
	b := tx.b.Bucket(bAdmissions)
	if b.Get(admissionKey(a.Policy, a.Game)) != nil {
		return nil
	}
	if a.Created.IsZero() {
		a.Created = time.Now().UTC()
	}
	return put(b, admissionKey(a.Policy, a.Game), a)
}

// Admission returns the verdict on a source (by id) for a game.
func (tx *Tx) Admission(policy, game string) (*Admission, error) {
	b := tx.b.Bucket(bAdmissions)
	if b == nil {
		return nil, fmt.Errorf("admission of %.12s: %w", policy, ErrNotFound)
	}
	a := &Admission{}
	if err := get(b, admissionKey(policy, game), a); err != nil {
		return nil, fmt.Errorf("admission of %.12s: %w", policy, err)
	}
	return a, nil
}

// PutComparison stores (or replaces) a comparison's report.
func (tx *Tx) PutComparison(c *Comparison) error {
	if c.Created.IsZero() {
		c.Created = time.Now().UTC()
	}
	return put(tx.b.Bucket(bComparisons), []byte(c.ID), c)
}

// Comparison returns a comparison's stored report (ErrNotFound when it
// has none: compare has not finished it, or the store predates them).
func (tx *Tx) Comparison(id string) (*Comparison, error) {
	b := tx.b.Bucket(bComparisons)
	if b == nil {
		return nil, fmt.Errorf("comparison %s: %w", id, ErrNotFound)
	}
	c := &Comparison{}
	if err := get(b, []byte(id), c); err != nil {
		return nil, err
	}
	return c, nil
}
