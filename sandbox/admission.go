package sandbox

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Admission's seeds. The smoke test and the whole-episode check once
// played the fixed seeds 0 and 1, so a policy could recognise them (by
// the state they start in) and behave only there. Now each check of each
// policy plays a seed drawn from a keyed hash of the policy and the
// check's name: a policy cannot predict it without the key, which it
// cannot read (a worker reads no file, and the key is in none of its
// inputs). The key is the machine's (a random key kept in the worker
// cache, created at the first admission), so admission stays
// reproducible on a machine: the same source meets the same seeds in
// every run, as a resumed or repeated run must (docs/decisions.md).

// admissionKeyFile is the key's file in the worker cache.
const admissionKeyFile = "admission.key"

// admissionKey returns the key of admission's seeds: Config.AdmissionKey,
// else the machine's (created when missing), else, when the cache cannot
// keep one, a key of this process.
func (s *Sandbox) admissionKey() []byte {
	s.keyOnce.Do(func() {
		if len(s.cfg.AdmissionKey) > 0 {
			s.key = s.cfg.AdmissionKey
			return
		}
		path := filepath.Join(s.cfg.CacheDir, admissionKeyFile)
		if k, err := os.ReadFile(path); err == nil && len(k) == 32 {
			s.key = k
			return
		}
		k := make([]byte, 32)
		rand.Read(k)
		s.key = k
		if os.MkdirAll(s.cfg.CacheDir, 0o755) != nil {
			return
		}
		// Create it exclusively: of two processes that race, the second
		// reads the first's.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			if k, err := os.ReadFile(path); err == nil && len(k) == 32 {
				s.key = k
			}
			return
		}
		if err != nil {
			return
		}
		tmpOK := true
		if _, err := f.Write(k); err != nil {
			tmpOK = false
		}
		if f.Close() != nil || !tmpOK {
			os.Remove(path)
		}
	})
	return s.key
}

// admissionSeed is the seed of admission's check named check for the
// policy id: 32 bits of a keyed hash (see above).
func (s *Sandbox) admissionSeed(id, check string) uint64 {
	h := sha256.New()
	h.Write([]byte("policyevolve admission seed\x00"))
	h.Write(s.admissionKey())
	h.Write([]byte("\x00" + id + "\x00" + check))
	return uint64(binary.BigEndian.Uint32(h.Sum(nil)))
}
