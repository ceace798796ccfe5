package sandbox

// prepared is a validated policy made ready for one backend, in the host:
// what the backend runs, and how.
type prepared struct {
	id     string // the policy's content address
	source []byte // the policy as written
	// code is what the backend runs: for the native backend the policy
	// file of the worker module (package main, conversions rewritten), for
	// yaegi the source rewritten for the interpreter. Both carry the
	// generated reset when there is one.
	code []byte
	// reset: code declares resetName (native: the worker's main passes it
	// to the worker).
	reset bool
	// reusable: a worker may play several episodes. False for a policy
	// with package-level state that could not be made resettable (no type
	// information): it gets a fresh worker per episode.
	reusable bool
}

// prepare validates src and prepares it for backend be: the generated
// reset, then the rewrite for the backend. A bad source gives a
// *ValidationError, and so does a panic in any of these stages (see
// refusePanic): they all run in the host.
func prepare(src []byte, be Backend) (_ *prepared, err error) {
	c, err := Validate(src)
	if err != nil {
		return nil, err
	}
	defer refusePanic("preparation for the "+string(be)+" backend", &err)
	enterStage("reset")
	r, reset, err := withReset(c)
	if err != nil {
		return nil, err
	}
	p := &prepared{id: c.ID, source: c.Source, reset: reset, reusable: reset || !hasState(c)}
	switch be {
	case Native:
		enterStage("native")
		p.code, err = nativeSource(r)
	case Yaegi:
		enterStage("yaegi")
		p.code, err = rewriteForYaegi(r)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}
