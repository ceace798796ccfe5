package sandbox

import (
	"fmt"
	"runtime"
	"strings"
)

// Admission runs in the host process: parsing, type checking, the size
// and rule checks, the generated reset and the rewrites for each backend
// all look at untrusted source there. A panic in any of them (go/types
// asserts on a few valid shapes, a rewrite may meet a construct it did not
// foresee) must cost the policy, never the host: every stage is guarded,
// and a panic becomes a refusal of that policy, a *ValidationError whose
// message names the stage and the panic. A refusal is the same whenever
// the source is admitted again, so a run that replays a stored answer
// (a resumed evolve) meets the same refusal instead of the same crash.

// refusePanic, deferred by a stage of admission that returns err, turns
// a panic of that stage into a refusal of the policy.
func refusePanic(stage string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	msg := fmt.Sprint(r)
	if len(msg) > 300 {
		msg = msg[:297] + "..."
	}
	if where := panicFrame(); where != "" {
		msg += " in " + where
	}
	*err = &ValidationError{File: PolicyFileName, Issues: []Issue{{Line: 1, Col: 1,
		Msg: fmt.Sprintf("the sandbox's %s failed on this source (%s), so it is refused; "+
			"write the construct it stumbled on another way (and please report it)", stage, msg)}}}
}

// panicFrame names the function that panicked, seen from a deferred
// function that recovered: the first frame outside the runtime and this
// file.
func panicFrame() string {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasSuffix(f.File, "/guard.go") {
			return f.Function
		}
		if !more {
			return ""
		}
	}
}

// stageHook, when set (by a test, never otherwise), is called at the
// start of every guarded stage of admission with the stage's name: a
// stand-in for a panic no one has found yet, to test the guards.
var stageHook func(stage string)

func enterStage(stage string) {
	if stageHook != nil {
		stageHook(stage)
	}
}
