package worker

import (
	"errors"
	"strconv"
)

// stdVars are the exported variables of the standard-library packages a
// policy may import (the sandbox's AllowedImports), with the values they
// had when this worker started. Admission refuses a policy that writes
// one; as a second line, every worker puts them back before every
// episode, so that no episode can see what an earlier one left there.
// The sandbox's tests check that the list is complete for both backends.
var stdVars = []struct {
	name string
	p    *error
	v    error
}{
	{"errors.ErrUnsupported", &errors.ErrUnsupported, errors.ErrUnsupported},
	{"strconv.ErrRange", &strconv.ErrRange, strconv.ErrRange},
	{"strconv.ErrSyntax", &strconv.ErrSyntax, strconv.ErrSyntax},
}

// restoreStdVars puts every variable of stdVars back to its value at start.
func restoreStdVars() {
	for _, s := range stdVars {
		*s.p = s.v
	}
}

// StdVars names the variables a worker restores before every episode
// ("strconv.ErrRange", …).
func StdVars() []string {
	out := make([]string, len(stdVars))
	for i, s := range stdVars {
		out[i] = s.name
	}
	return out
}
