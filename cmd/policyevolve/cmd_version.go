package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	commands["version"] = command{"print the program's version: module version, source revision, Go version", cmdVersion}
}

func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "", `
Print the program's version: the module's version (a tagged release, or
(devel) for a build from a checkout), the source revision it was built
from with its time and whether the checkout had uncommitted changes
(when Go recorded them: go build and go install in a git checkout do, go
run does not), and the Go version that built it. policyevolve --version
prints the same.`, stdout)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "policyevolve: no build information (built without module support)")
		return nil
	}
	fmt.Fprint(stdout, versionText(info))
	return nil
}

// versionText is what version prints for a build's information: the
// module version, then the VCS revision and the Go version, one a line.
func versionText(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	s := fmt.Sprintf("policyevolve %s\n", v)
	var rev, when, modified string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			when = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if rev != "" {
		s += "revision " + rev
		if when != "" {
			s += " (" + when + ")"
		}
		if modified == "true" {
			s += ", with uncommitted changes"
		}
		s += "\n"
	} else {
		s += "revision unknown (this build recorded none: go build and go install record it in a git checkout, unless -buildvcs=false)\n"
	}
	return s + "built with " + info.GoVersion + "\n"
}
