package episode

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/internal/infile"
)

// MaxMapFile bounds a map file (the largest built-in map, the paper's
// 38x16 Gathering map, is under 1 KiB).
const MaxMapFile = 1 << 20

// ResolveMap returns the built-in map called spec, or else the map in the
// file spec names: a regular file of at most MaxMapFile bytes (a named
// pipe, a device or a directory is refused before it is opened). The
// map files are read here, on the host, not in envs, whose sources are
// compiled into every native worker and read no files.
func ResolveMap(game ssd.Game, spec string) (*envs.Map, error) {
	m, err := envs.BuiltinMap(game, spec)
	if err == nil || !errors.Is(err, envs.ErrUnknownMap) {
		return m, err
	}
	if _, statErr := os.Stat(spec); statErr != nil {
		return nil, fmt.Errorf("map %q is neither a built-in %s map (%s) nor a readable file",
			spec, game, strings.Join(envs.BuiltinMaps(game), ", "))
	}
	data, err := infile.Read(spec, MaxMapFile)
	if err != nil {
		return nil, fmt.Errorf("load map: %w", err)
	}
	return envs.ParseMap(game, spec, string(data))
}
