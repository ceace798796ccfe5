package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"policyevolve/envs"
)

// The cross-check's verdicts, stored. Playing a whole episode on the
// yaegi backend costs up to AdmissionCPU, and the same policy is admitted
// again and again (a resumed run replays its stored answers, a pool
// import repeats, tests rerun jobs). A verdict that admitted the policy
// (the backends agreed, or one could not judge) is therefore made once
// and kept in the worker cache, keyed by both programs as they run (the
// native worker's cache key, the rewritten source for yaegi, the
// interpreter's version) and the episode; it is never recomputed, like
// every verdict that depends on how much CPU time a run was given
// (docs/decisions.md, "Determinism").
// Disagreements are not kept: they refuse the policy, which is not
// admitted again.

type verdict struct {
	Compared []Backend `json:"compared"`
	Note     string    `json:"note"`
	Steps    int       `json:"steps"` // SmokeReport.CrossSteps
}

// programKey identifies a program as it runs.
func programKey(p *Program) string {
	if p.Backend == Native {
		return "native " + filepath.Base(p.binary)
	}
	sum := sha256.Sum256(p.code)
	return "yaegi " + yaegiVersion() + " " + hex.EncodeToString(sum[:])
}

// yaegiVersion is the interpreter module's version in this binary.
func yaegiVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/traefik/yaegi" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func (s *Sandbox) verdictKey(p, po *Program, cfg envs.Config, seed uint64) string {
	h := sha256.New()
	fmt.Fprintf(h, "crosscheck 2\n%s\n%s\n%s\n%d agents %d steps seed %d cpu %d\n", programKey(p), programKey(po),
		cfg.Map.Name, cfg.Agents, cfg.MaxSteps, seed, s.cfg.AdmissionCPU)
	h.Write([]byte(cfg.Map.Text))
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Sandbox) verdictPath(key string) string {
	return filepath.Join(s.cfg.CacheDir, "verdicts", key[:2], key)
}

func (s *Sandbox) readVerdict(key string) (verdict, bool) {
	var v verdict
	b, err := os.ReadFile(s.verdictPath(key))
	if err != nil || json.Unmarshal(b, &v) != nil {
		return verdict{}, false
	}
	return v, true
}

// writeVerdict keeps a verdict; a failure to write only costs a later
// admission the run again.
func (s *Sandbox) writeVerdict(key string, v verdict) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	path := s.verdictPath(key)
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "tmp-")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		if os.Rename(tmp.Name(), path) == nil {
			return
		}
	}
	os.Remove(tmp.Name())
}
