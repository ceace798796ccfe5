package live

import (
	"fmt"
	"net/http"
	"strconv"

	"policyevolve/report"
)

// serveReplay answers /replay/POLICY?seed=N&run=RUN (or &env=KEY) with
// the GIF of the policy in self-play on that seed: frames 0 to
// report.DefaultReplayFrames at report.DefaultReplayScale. Replays are
// played one at a time, in the sandbox for a source, and the newest
// replayCacheSize are kept; the same policy, environment and seed always
// play the same episode, so the browser may keep it too.
func (s *Server) serveReplay(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	seed, err := strconv.ParseUint(q.Get("seed"), 10, 64)
	if err != nil {
		s.fail(w, r, &badRequest{fmt.Sprintf("seed %q: want a seed, 0 or more", q.Get("seed"))})
		return
	}
	ref := report.ReplayRef{Policy: r.PathValue("id"), Run: q.Get("run"), Seed: seed}
	if ref.Run == "" {
		env, ok := report.ParseEnvKey(q.Get("env"))
		if !ok {
			s.fail(w, r, &badRequest{fmt.Sprintf("env %q: want GAME/MAP/AGENTS/STEPS, or run=RUN_ID", q.Get("env"))})
			return
		}
		ref.Env = env
	}
	key := fmt.Sprintf("%s|%s|%s|%d", ref.Policy, ref.Run, ref.Env.Key(), ref.Seed)
	gif, err := s.replays.get(key, func() (any, error) {
		select {
		case s.play <- struct{}{}:
		case <-s.ctx.Done():
			return nil, s.ctx.Err()
		}
		defer func() { <-s.play }()
		rp, err := report.ReplayGIF(s.ctx, s.store, ref, report.ReplayOptions{Sandbox: s.opt.Sandbox})
		if err != nil {
			return nil, err
		}
		return rp.GIF, nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, "image/gif", "private, max-age=86400", gif.([]byte))
}
