package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestMain doubles as the crash test's child: with STORE_TEST_WRITER set it
// writes records in a loop, printing each id once its commit returned.
func TestMain(m *testing.M) {
	if path := os.Getenv("STORE_TEST_WRITER"); path != "" {
		os.Exit(writerLoop(path))
	}
	os.Exit(m.Run())
}

func writerLoop(path string) int {
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		p := &Policy{Source: fmt.Sprintf("package policy // %d %d", os.Getpid(), i)}
		err := s.Update(func(tx *Tx) error {
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
			env := EnvConfig{Game: "gathering", Map: "small", Agents: 2, MaxSteps: 10}
			if err := tx.PutEvaluation(&Evaluation{Policy: p.ID, Env: env, Seeds: []uint64{uint64(i)}, Status: StatusOK}); err != nil {
				return err
			}
			pool := GlobalPool(env)
			if err := tx.AddMember(&Member{Policy: p.ID, Pool: pool}); err != nil {
				return err
			}
			return tx.PutRating(&Rating{Policy: p.ID, Pool: pool, Elo: 1200})
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(w, p.ID)
		w.Flush()
	}
}

// newStore creates a store in a temporary folder and checks its invariants
// when the test ends, whatever the test did.
func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "test.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustCheck(t, s) })
	return s
}

func mustCheck(t *testing.T, s *Store) {
	t.Helper()
	problems, err := s.Check()
	if err != nil {
		t.Errorf("store check: %v", err)
	}
	for _, p := range problems {
		t.Errorf("store check: %s", p)
	}
}

var env = EnvConfig{Game: "gathering", Map: "large", Agents: 10, MaxSteps: 1000}

func addPolicy(t *testing.T, s *Store, src string) string {
	t.Helper()
	p := &Policy{Source: src, Origin: Origin{Operator: "import"}}
	if err := s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(p); return err }); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func TestRecordsRoundTrip(t *testing.T) {
	s := newStore(t)
	a := addPolicy(t, s, "package policy // a")
	b := addPolicy(t, s, "package policy // b")
	if a != SourceID("package policy // a") {
		t.Fatal("policy id is not the SHA-256 of its source")
	}
	pool := GlobalPool(env)
	err := s.Update(func(tx *Tx) error {
		created, err := tx.PutPolicy(&Policy{Source: "package policy // a", Origin: Origin{Operator: "mutate"}})
		if err != nil || created {
			return fmt.Errorf("a second put of the same source: created=%v err=%v", created, err)
		}
		if _, err := tx.PutPolicy(&Policy{ID: b, Source: "package policy // a"}); err == nil {
			return errors.New("a wrong id was accepted")
		}
		ev := &Evaluation{Policy: a, Env: env, Seeds: []uint64{0, 1}, Status: StatusOK,
			PerSeed: []SeedResult{{Seed: 0, Status: StatusOK, Returns: []float64{1, 2}}, {Seed: 1, Status: StatusOK}}}
		if err := tx.PutEvaluation(ev); err != nil {
			return err
		}
		if err := tx.PutMatch(&Match{A: a, B: b, Env: env, Seed: 3, ScoreA: 5, ScoreB: 4, Outcome: 1}); err != nil {
			return err
		}
		for _, id := range []string{a, b} {
			if err := tx.AddMember(&Member{Policy: id, Pool: pool, Reason: "import"}); err != nil {
				return err
			}
		}
		if err := tx.PutRating(&Rating{Policy: a, Pool: pool, Elo: 1216, Games: 1, Wins: 1,
			History: []RatingPoint{{Elo: 1216, Opponent: b, Seed: 3, Outcome: 1}}}); err != nil {
			return err
		}
		r := &Run{Mode: "population", Seed: 7, Status: StatusRunning}
		if err := tx.CreateRun(r); err != nil || r.ID != "run-1" {
			return fmt.Errorf("run %q: %v", r.ID, err)
		}
		if err := tx.AddCritique(&Critique{Policy: a, Text: "stands still"}); err != nil {
			return err
		}
		return tx.AddLLMCall(&LLMCall{Run: r.ID, Provider: "fake", Model: "m", Prompt: "p", Answer: "x", TokensIn: 3})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(func(tx *Tx) error {
		p, err := tx.Policy(a)
		if err != nil || p.Origin.Operator != "import" {
			return fmt.Errorf("first origin not kept: %+v %v", p, err)
		}
		ev, err := tx.Evaluation(a, env, []uint64{0, 1})
		if err != nil || len(ev.PerSeed) != 2 || ev.PerSeed[0].Returns[1] != 2 {
			return fmt.Errorf("evaluation %+v %v", ev, err)
		}
		if _, err := tx.Evaluation(a, env, []uint64{0}); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("evaluation over other seeds: %v", err)
		}
		ms, err := tx.MatchesOf(b)
		if err != nil || len(ms) != 1 || ms[0].ScoreA != 5 {
			return fmt.Errorf("matches %+v %v", ms, err)
		}
		members, _ := tx.Members(pool)
		pools, _ := tx.PoolsOf(b)
		if len(members) != 2 || len(pools) != 1 || pools[0] != pool {
			return fmt.Errorf("members %+v pools %v", members, pools)
		}
		r, err := tx.Rating(pool, a)
		if err != nil || r.Elo != 1216 || len(r.History) != 1 {
			return fmt.Errorf("rating %+v %v", r, err)
		}
		calls, _ := tx.LLMCalls("run-1")
		crit, _ := tx.Critiques(a)
		if len(calls) != 1 || calls[0].ID != 1 || len(crit) != 1 {
			return fmt.Errorf("logs %+v %+v", calls, crit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Removing a member removes its rating there.
	if err := s.Update(func(tx *Tx) error { return tx.RemoveMember(pool, a) }); err != nil {
		t.Fatal(err)
	}
	s.View(func(tx *Tx) error {
		if _, err := tx.Rating(pool, a); !errors.Is(err, ErrNotFound) {
			t.Errorf("rating survived removal: %v", err)
		}
		return nil
	})
}

func TestReferencesMustExist(t *testing.T) {
	s := newStore(t)
	a := addPolicy(t, s, "package policy // only")
	for name, fn := range map[string]func(tx *Tx) error{
		"evaluation": func(tx *Tx) error { return tx.PutEvaluation(&Evaluation{Policy: "beef", Env: env}) },
		"match":      func(tx *Tx) error { return tx.PutMatch(&Match{A: a, B: "beef", Env: env}) },
		"member":     func(tx *Tx) error { return tx.AddMember(&Member{Policy: "beef", Pool: "global/x"}) },
		"critique":   func(tx *Tx) error { return tx.AddCritique(&Critique{Policy: "beef", Text: "x"}) },
		"rating of a non-member": func(tx *Tx) error {
			return tx.PutRating(&Rating{Policy: a, Pool: "global/x", Elo: 1200})
		},
	} {
		if err := s.Update(fn); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s with an unknown policy: %v", name, err)
		}
	}
}

func TestResolvePolicy(t *testing.T) {
	s := newStore(t)
	var ids []string
	for i := 0; i < 40; i++ {
		ids = append(ids, addPolicy(t, s, fmt.Sprintf("package policy // %d", i)))
	}
	s.View(func(tx *Tx) error {
		for _, id := range ids {
			got, err := tx.ResolvePolicy(id[:12])
			if err != nil || got != id {
				t.Errorf("ResolvePolicy(%s) = %s, %v", id[:12], got, err)
			}
		}
		// One hex digit is shared by several of 40 ids.
		counts := map[byte]int{}
		for _, id := range ids {
			counts[id[0]]++
		}
		for c, n := range counts {
			_, err := tx.ResolvePolicy(string(c))
			if n > 1 && !errors.Is(err, ErrAmbiguous) {
				t.Errorf("prefix %c (%d ids): %v", c, n, err)
			}
		}
		if _, err := tx.ResolvePolicy("zzz"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown prefix: %v", err)
		}
		return nil
	})
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, bytes.Repeat([]byte("not a database\n"), 1000), 0o644)

	foreign := filepath.Join(dir, "other.db")
	db, err := bolt.Open(foreign, 0o644, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucket([]byte("users"))
		return b.Put([]byte("alice"), []byte("1"))
	})
	db.Close()

	newer := filepath.Join(dir, "newer.db")
	if _, err := Open(newer, Options{}); err != nil {
		t.Fatal(err)
	}
	db, _ = bolt.Open(newer, 0o644, &bolt.Options{Timeout: time.Second})
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, u64(SchemaVersion+1)) })
	db.Close()

	for _, c := range []struct {
		path string
		want error
		msg  string
	}{
		{text, ErrNotStore, "not a policyevolve store"},
		{foreign, ErrNotStore, "a bbolt database with buckets users and no policyevolve metadata"},
		{newer, ErrNewerSchema, fmt.Sprintf("schema %d, this policyevolve knows %d", SchemaVersion+1, SchemaVersion)},
	} {
		before := fileHash(t, c.path)
		for _, ro := range []bool{false, true} {
			_, err := Open(c.path, Options{ReadOnly: ro})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s (read-only %v): got %v, want %v: %s", filepath.Base(c.path), ro, err, c.want, c.msg)
			}
		}
		if fileHash(t, c.path) != before {
			t.Errorf("%s was modified", filepath.Base(c.path))
		}
	}
}

// TestForeignBboltWithFreelistSyncUntouched: bbolt commits at open when a
// database does not sync its freelist; identifying the file read-only
// first keeps even that from happening to a foreign file.
func TestForeignBboltWithFreelistSyncUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etcd-like.db")
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second, NoFreelistSync: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucket([]byte("key"))
		return b.Put([]byte("a"), []byte("b"))
	})
	db.Close()
	before := fileHash(t, path)
	if _, err := Open(path, Options{}); !errors.Is(err, ErrNotStore) {
		t.Fatalf("got %v", err)
	}
	if fileHash(t, path) != before {
		t.Fatal("the foreign file was written to")
	}
}

// TestInterruptedCreation: a bbolt file left without buckets (the creating
// process died before its first commit) becomes a store on the next open.
func TestInterruptedCreation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "half.db")
	db, _ := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	db.Close()
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrNotStore) {
		t.Fatalf("read-only: %v", err)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s)
}

// TestVanishedStore: a store deleted or replaced by a newer schema while a
// process uses it gives clear errors, and is not silently recreated.
func TestVanishedStore(t *testing.T) {
	s := newStore(t)
	path := s.Path()
	data, _ := os.ReadFile(path)
	os.Remove(path)
	err := s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(&Policy{Source: "x"}); return err })
	if err == nil || !strings.Contains(err.Error(), "the file is gone") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the vanished store was recreated")
	}
	os.WriteFile(path, data, 0o644)
	db, _ := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, u64(SchemaVersion+1)) })
	db.Close()
	err = s.View(func(*Tx) error { return nil })
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("after another program migrated the store: %v", err)
	}
	db, _ = bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, u64(SchemaVersion)) })
	db.Close()
}

func TestCorruptStoreIsReportedNotOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s, _ := Open(path, Options{})
	s.Update(func(tx *Tx) error { _, err := tx.PutPolicy(&Policy{Source: "x"}); return err })
	// Garble both meta pages.
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	f.WriteAt(bytes.Repeat([]byte{0xAB}, 8192), 0)
	f.Close()
	before := fileHash(t, path)
	if _, err := Open(path, Options{}); !errors.Is(err, ErrNotStore) {
		t.Fatalf("got %v", err)
	}
	if fileHash(t, path) != before {
		t.Fatal("the corrupt store was written to")
	}
}

func TestReadOnly(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "missing.db"), Options{ReadOnly: true}); err == nil {
		t.Fatal("read-only open created a store")
	}
	s := newStore(t)
	ro, err := Open(s.Path(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ro.Update(func(*Tx) error { return nil }); err == nil {
		t.Fatal("a read-only store accepted a write")
	}
}

func TestCheckFindsBrokenInvariants(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	s, _ := Open(path, Options{})
	a := ""
	s.Update(func(tx *Tx) error {
		p := &Policy{Source: "package policy"}
		tx.PutPolicy(p)
		a = p.ID
		return nil
	})
	db, _ := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	db.Update(func(tx *bolt.Tx) error {
		put(tx.Bucket(bMatches), matchKey(a, "dead", env, 1), &Match{A: a, B: "dead", Env: env, Seed: 1})
		put(tx.Bucket(bPolicies), []byte("f00d"), &Policy{ID: "f00d", Source: "other"})
		r, _ := tx.Bucket(bRatings).CreateBucketIfNotExists([]byte("global/x"))
		put(r, []byte(a), &Rating{Policy: a, Pool: "global/x", Games: 2, Wins: 1})
		put(tx.Bucket(bIterations), iterationKey("run-8", 0), &Iteration{Run: "run-8", Index: 0, Champion: "gone",
			Candidates: []Candidate{{Policy: a}, {Policy: "lost"}}})
		put(tx.Bucket(bIterations), iterationKey("run-9", 5), &Iteration{Run: "run-9", Index: 4})
		put(tx.Bucket(bAdmissions), admissionKey(a, "cleanup"), &Admission{Policy: a, Game: "gathering"})
		return tx.Bucket(bRuns).Put([]byte("run-9"), []byte("{not json"))
	})
	db.Close()
	problems, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{"unknown policy dead", "f00d is not the SHA-256 of its source",
		"rated in global/x but not a member of it", "2 games but 1+0+0 results", `runs: record "run-9" does not decode`,
		"iterations: iteration 0 of unknown run run-8", "a champion refers to unknown policy gone", "a candidate refers to unknown policy lost",
		"is iteration 4 of run run-9", "admissions: record under"} {
		if !strings.Contains(all, want) {
			t.Errorf("check missed %q in:\n%s", want, all)
		}
	}
}

func TestCompact(t *testing.T) {
	s := newStore(t)
	for i := 0; i < 300; i++ {
		addPolicy(t, s, strings.Repeat(fmt.Sprintf("// %d\n", i), 200))
	}
	// Delete most of it to leave free pages.
	s.Update(func(tx *Tx) error {
		c := tx.b.Bucket(bPolicies).Cursor()
		n := 0
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if n++; n > 10 {
				c.Delete()
			}
		}
		return nil
	})
	os.Chmod(s.Path(), 0o600)
	before, after, err := s.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(s.Path()); st.Mode().Perm() != 0o600 {
		t.Errorf("compaction changed the mode to %v", st.Mode().Perm())
	}
	if after >= before {
		t.Fatalf("compaction did not shrink the file: %d -> %d", before, after)
	}
	s.View(func(tx *Tx) error {
		ps, _ := tx.Policies()
		if len(ps) != 10 {
			t.Errorf("%d policies after compaction, want 10", len(ps))
		}
		return nil
	})
}

// TestBusyInsteadOfHanging: a second process (here a second Store on the
// same file) waits at most its timeout for a lock held too long.
func TestBusyInsteadOfHanging(t *testing.T) {
	s := newStore(t)
	other, err := Open(s.Path(), Options{Timeout: 200 * time.Millisecond, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	holding, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.Update(func(*Tx) error {
			close(holding)
			<-release // held until the reader has given up
			return nil
		})
	}()
	<-holding
	start := time.Now()
	err = other.View(func(*Tx) error { return nil })
	waited := time.Since(start)
	close(release)
	if !errors.Is(err, ErrBusy) || waited < 200*time.Millisecond {
		t.Fatalf("got %v after %v, want ErrBusy after at least 200ms", err, waited)
	}
	<-done
	if err := other.View(func(*Tx) error { return nil }); err != nil {
		t.Fatalf("after the writer: %v", err)
	}
}

// TestConcurrentStores: a writer and readers on separate Store values (as
// separate processes would be) interleave without errors or lost writes,
// and readers reading back to back do not starve the writer.
func TestConcurrentStores(t *testing.T) {
	s := newStore(t)
	reader, _ := Open(s.Path(), Options{ReadOnly: true})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 10)
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				var n int
				if err := reader.View(func(tx *Tx) error {
					ps, err := tx.Policies()
					n = len(ps)
					return err
				}); err != nil {
					errs <- err
					return
				}
				if n < last {
					errs <- fmt.Errorf("a reader saw %d policies after %d", n, last)
					return
				}
				last = n
			}
		}()
	}
	for i := 0; i < 100; i++ {
		addPolicy(t, s, fmt.Sprintf("package policy // concurrent %d", i))
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCrashSafety kills a writing child process at random moments; each
// time the store reopens, passes its check and holds every record whose
// commit the child had reported.
func TestCrashSafety(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	committed := map[string]bool{}
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "STORE_TEST_WRITER="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill after a random number of commits plus a random delay, so
		// that the kill lands anywhere in a write, however slowly a busy
		// machine runs the child (a wall-clock deadline from its start
		// could kill it before it wrote anything).
		kill, n := 3+rng.IntN(10), 0
		var killed <-chan time.Time
	collect:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break collect
				}
				committed[l] = true
				if n++; n == kill {
					killed = time.After(time.Duration(rng.IntN(3000)) * time.Microsecond)
				}
			case <-killed:
				cmd.Process.Signal(syscall.SIGKILL)
				for l := range lines {
					committed[l] = true
				}
				break collect
			}
		}
		cmd.Wait()
		if stderr.Len() > 0 {
			t.Fatalf("round %d: writer failed: %s", round, stderr.String())
		}
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		mustCheck(t, s)
		err = s.View(func(tx *Tx) error {
			for id := range committed {
				if _, err := tx.Policy(id); err != nil {
					return fmt.Errorf("committed policy %.12s lost: %w", id, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	if len(committed) < 20 {
		t.Fatalf("only %d records committed over all rounds; the test proved little", len(committed))
	}
	t.Logf("%d committed records survived 8 kills", len(committed))
}

// TestOpenRefusesADirectory: a directory named as the store is refused,
// read-only or not, and nothing is created beside it.
func TestOpenRefusesADirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "runs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		_, err := Open(dir, Options{ReadOnly: ro})
		if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), dir+" is a directory") {
			t.Errorf("read-only %v: %v", ro, err)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the directory: %v", names)
	}
}

// TestOriginDescribe: one phrase per origin; a local round's improve is a
// refine, with its round.
func TestOriginDescribe(t *testing.T) {
	for _, c := range []struct {
		o             Origin
		describe, how string
	}{
		{Origin{Run: "run-1", Iteration: 0, Sample: 1, Operator: "init", Planner: "grammar"},
			"init by grammar in run-1 iteration 0", "init by grammar"},
		{Origin{Run: "run-1", Iteration: 2, Sample: 1 + 2*LocalRoundStride, Operator: "improve", Planner: "grammar", Parents: []string{"854f4141aaaa"}},
			"refine (local round 2) by grammar in run-1 iteration 2 from 854f4141", "refine (local round 2) by grammar from 854f4141"},
		{Origin{Run: "run-1", Iteration: 2, Sample: 3, Operator: "improve", Planner: "grammar", Parents: []string{"854f4141aaaa"}},
			"improve by grammar in run-1 iteration 2 from 854f4141", "improve by grammar from 854f4141"},
		{Origin{Operator: "import", Planner: "human"}, "import by human", "import by human"},
		{Origin{}, "unknown", "unknown"},
	} {
		if got := c.o.Describe(8); got != c.describe {
			t.Errorf("Describe(%+v) = %q, want %q", c.o, got, c.describe)
		}
		if got := c.o.How(8); got != c.how {
			t.Errorf("How(%+v) = %q, want %q", c.o, got, c.how)
		}
	}
}

// TestOpenRefusesAMissingDirectory: a store in a folder that does not
// exist is refused naming the folder, and nothing is created (no lock
// files, no folder).
func TestOpenRefusesAMissingDirectory(t *testing.T) {
	parent := t.TempDir()
	missing := filepath.Join(parent, "nope")
	_, err := Open(filepath.Join(missing, "x.db"), Options{})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "the directory "+missing+" does not exist") {
		t.Errorf("got %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("made %d entries", len(entries))
	}
}

// TestNotAStoreLeavesNoLockFiles: a file that is not bbolt's (text, an
// empty file) is refused before the lock files are made beside it.
func TestNotAStoreLeavesNoLockFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(text, []byte(strings.Repeat("not a database\n", 1000)), 0o644)
	os.WriteFile(empty, nil, 0o644)
	for _, p := range []string{text, empty} {
		for _, ro := range []bool{false, true} {
			if _, err := Open(p, Options{ReadOnly: ro}); !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s (read-only %v): %v", filepath.Base(p), ro, err)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the files: %v", names)
	}
}
