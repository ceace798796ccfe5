package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"policyevolve/envs"
)

// The cross-check where the run plays. Admission compares the backends
// on the game's default map unless told the run's environment
// (Config.AdmissionEnv); the commands that play a policy without
// admitting it (play, match, invade) compare it themselves, on their
// own map, agent count and steps (CompareEpisode, CrossCheck). A policy
// that misbehaves on one backend only where the run plays (if
// v.Height() < 15 { … }, the small map) is caught there.

// admissionEnv is admission's whole episode: the run's environment when
// Config.AdmissionEnv names one of the game admitted, else def (the
// game's default map) with AdmissionSteps steps.
func (s *Sandbox) admissionEnv(def envs.Config) envs.Config {
	cfg := def
	cfg.MaxSteps = s.cfg.AdmissionSteps
	run := s.cfg.AdmissionEnv
	if run.Map == nil || run.Map.Game != def.Map.Game {
		return cfg
	}
	cfg.Map, cfg.Params = run.Map, run.Params
	if run.Agents > 0 {
		cfg.Agents = run.Agents
	}
	if run.MaxSteps > 0 {
		cfg.MaxSteps = run.MaxSteps
	}
	return cfg
}

// CrossEnabled reports whether this Sandbox compares its backend with
// the other (a Go toolchain is present and the cross-check is not off),
// or why not.
func (s *Sandbox) CrossEnabled() (bool, string) {
	other, why := s.otherBackend()
	return other != nil, why
}

// CompareEpisode plays the episode that p played (res, recorded, of
// environment cfg from res.Seed) on the other backend and compares
// every agent's action at every step (see crossCheck): an ErrDisagree
// PolicyError when they differ. The report says which backends it
// compared and on how many steps; without the other backend (no Go
// toolchain, or the cross-check off) it compares nothing and says why.
func (s *Sandbox) CompareEpisode(ctx context.Context, p *Program, cfg envs.Config, res *envs.Result) (*SmokeReport, error) {
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = envs.DefaultMaxSteps
	}
	rep := &SmokeReport{Agents: cfg.Agents, Episode: cfg.MaxSteps}
	if res == nil || res.Trajectory == nil {
		return rep, fmt.Errorf("cross-check: the episode was not recorded")
	}
	rep.Replayed = len(res.Trajectory.Steps)
	return rep, s.crossCheck(ctx, p, cfg, rep, res)
}

// CrossCheck plays environment cfg (a run's map, agent count and steps)
// from seed on p's backend, within AdmissionCPU, and compares it with
// the other backend (CompareEpisode).
func (s *Sandbox) CrossCheck(ctx context.Context, p *Program, cfg envs.Config, seed uint64) (*SmokeReport, error) {
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = envs.DefaultMaxSteps
	}
	if ok, why := s.CrossEnabled(); !ok {
		return &SmokeReport{Agents: cfg.Agents, Episode: cfg.MaxSteps, Compared: []Backend{s.backend}, CrossNote: why}, nil
	}
	res, _, err := p.selfPlay(ctx, cfg, envs.Options{Seed: seed, Record: true}, s.cfg.AdmissionCPU)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var pe *PolicyError
	if err != nil && !errors.As(err, &pe) {
		return nil, fmt.Errorf("cross-check (%d steps, seed %d): %w", cfg.MaxSteps, seed, err)
	}
	return s.CompareEpisode(ctx, p, cfg, res)
}

// CrossSeed is a seed for a cross-check that a policy cannot expect:
// derived from the policy's source and the run's own seed (an input,
// so the same run compares on the same episode), not a constant.
func CrossSeed(src []byte, runSeed uint64) uint64 {
	h := sha256.New()
	h.Write([]byte("cross-check seed\n"))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], runSeed)
	h.Write(b[:])
	h.Write(src)
	return binary.LittleEndian.Uint64(h.Sum(nil)) >> 1
}
