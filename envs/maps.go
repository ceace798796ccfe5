package envs

import (
	"embed"
	"errors"
	"fmt"
	"sort"
	"strings"

	"policyevolve/envs/ssd"
)

// Map is a parsed ASCII map.
//
// Characters: '@' wall, 'A' apple spawn, 'P' player spawn, '.' or ' '
// empty; Cleanup adds 'H' (polluted river), 'R' (clean river) and 'S'
// (stream). Lines shorter than the longest are padded with empty cells, as
// the reference does (its built-in maps rely on it). Leading and trailing
// blank lines and a trailing '\r' on each line are ignored.
type Map struct {
	Name   string // built-in name or file path
	Text   string // the map's lines, without surrounding blank lines or '\r'
	Game   ssd.Game
	Height int
	Width  int
	Walls  []bool    // Height*Width, row-major
	Apples []ssd.Pos // apple spawns, in scan order
	Spawns []ssd.Pos // player spawns ('P'); see spawnPoints for maps without any
	River  []ssd.Pos // H and R cells, in scan order
	Dirty  []bool    // per River cell: starts polluted (H)
	Stream []ssd.Pos // S cells
}

// MapError is a malformed map: where and what.
type MapError struct {
	File string // map name or path
	Line int    // 1-based line in the file; 0 when the error is about the whole map
	Col  int    // 1-based column; 0 when the error is about a whole line or map
	Msg  string
}

func (e *MapError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ParseMap parses an ASCII map for game. name is used in error messages.
func ParseMap(game ssd.Game, name, text string) (*Map, error) {
	raw := strings.Split(text, "\n")
	for i, l := range raw {
		raw[i] = strings.TrimSuffix(l, "\r")
	}
	isBlank := func(l string) bool { return strings.TrimSpace(l) == "" }
	first, last := 0, len(raw)-1
	for first <= last && isBlank(raw[first]) {
		first++
	}
	for last >= first && isBlank(raw[last]) {
		last--
	}
	if first > last {
		return nil, &MapError{File: name, Msg: "empty map: no lines with cells"}
	}
	lines := raw[first : last+1]
	m := &Map{
		Name:   name,
		Text:   strings.Join(lines, "\n"),
		Game:   game,
		Height: len(lines),
	}
	for _, l := range lines {
		m.Width = max(m.Width, len(l))
	}
	m.Walls = make([]bool, m.Height*m.Width)
	open := 0
	for r, l := range lines {
		for c := 0; c < len(l); c++ {
			ch := l[c]
			pos := ssd.Pos{R: r, C: c}
			switch ch {
			case '@':
				m.Walls[r*m.Width+c] = true
				continue
			case 'A':
				m.Apples = append(m.Apples, pos)
			case 'P':
				m.Spawns = append(m.Spawns, pos)
			case '.', ' ':
			case 'H', 'R', 'S':
				if game != ssd.Cleanup {
					return nil, &MapError{File: name, Line: first + r + 1, Col: c + 1,
						Msg: fmt.Sprintf("%q is a Cleanup cell (river or stream); a %s map has only @ A P . and space", ch, game)}
				}
				if ch == 'S' {
					m.Stream = append(m.Stream, pos)
				} else {
					m.River = append(m.River, pos)
					m.Dirty = append(m.Dirty, ch == 'H')
				}
			default:
				want := "@ A P . or space"
				if game == ssd.Cleanup {
					want = "@ A P H R S . or space"
				}
				return nil, &MapError{File: name, Line: first + r + 1, Col: c + 1,
					Msg: fmt.Sprintf("unexpected character %s (want %s)", quoteByte(l, c), want)}
			}
			open++
		}
		// Padding cells are open too.
		open += m.Width - len(l)
	}
	if open == 0 {
		return nil, &MapError{File: name, Msg: "no cell an agent can stand on: every cell is a wall"}
	}
	return m, nil
}

// quoteByte quotes the character at byte c of l, decoding UTF-8 so that a
// stray non-ASCII character is shown whole.
func quoteByte(l string, c int) string {
	for i, r := range l {
		if i == c {
			return fmt.Sprintf("%q", r)
		}
	}
	return fmt.Sprintf("%q", l[c])
}

//go:embed maps/*.txt
var builtinFS embed.FS

// ErrUnknownMap is returned for a built-in map name that does not exist.
var ErrUnknownMap = errors.New("unknown map")

// BuiltinMap returns one of the maps shipped with the reference: Gathering
// small, default and large (the paper's 38x16 map); Cleanup small and
// default (the paper's).
func BuiltinMap(game ssd.Game, name string) (*Map, error) {
	data, err := builtinFS.ReadFile("maps/" + game.String() + "_" + name + ".txt")
	if err != nil {
		return nil, fmt.Errorf("%w %q for %s (built-in: %s)", ErrUnknownMap, name, game,
			strings.Join(BuiltinMaps(game), ", "))
	}
	return ParseMap(game, name, strings.TrimRight(string(data), "\n"))
}

// BuiltinMaps lists the built-in map names of a game, sorted.
func BuiltinMaps(game ssd.Game) []string {
	ents, _ := builtinFS.ReadDir("maps")
	prefix := game.String() + "_"
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutPrefix(e.Name(), prefix); ok {
			out = append(out, strings.TrimSuffix(n, ".txt"))
		}
	}
	sort.Strings(out)
	return out
}

// spawnPoints returns where agents start: the 'P' cells, or, on a map
// without any, the open non-apple cells within one cell of the border (the
// reference's fallback; river cells count in Cleanup).
func (m *Map) spawnPoints() []ssd.Pos {
	if len(m.Spawns) > 0 {
		return m.Spawns
	}
	apple := m.cellSet(m.Apples)
	var out []ssd.Pos
	for r := 0; r < m.Height; r++ {
		for c := 0; c < m.Width; c++ {
			i := r*m.Width + c
			if m.Walls[i] || apple[i] {
				continue
			}
			if r <= 1 || r >= m.Height-2 || c <= 1 || c >= m.Width-2 {
				out = append(out, ssd.Pos{R: r, C: c})
			}
		}
	}
	return out
}

// openCells returns the cells where agents beyond the spawn points may be
// placed: not a wall, not an apple spawn and, in Cleanup, not river or
// stream.
func (m *Map) openCells() []ssd.Pos {
	excl := m.cellSet(m.Apples)
	if m.Game == ssd.Cleanup {
		for _, p := range m.River {
			excl[p.R*m.Width+p.C] = true
		}
		for _, p := range m.Stream {
			excl[p.R*m.Width+p.C] = true
		}
	}
	var out []ssd.Pos
	for r := 0; r < m.Height; r++ {
		for c := 0; c < m.Width; c++ {
			if i := r*m.Width + c; !m.Walls[i] && !excl[i] {
				out = append(out, ssd.Pos{R: r, C: c})
			}
		}
	}
	return out
}

func (m *Map) cellSet(ps []ssd.Pos) []bool {
	s := make([]bool, m.Height*m.Width)
	for _, p := range ps {
		s[p.R*m.Width+p.C] = true
	}
	return s
}

// DefaultMap is the map of the paper's experiments for a game: Gathering
// "large" (38x16), Cleanup "default".
func DefaultMap(game ssd.Game) string {
	if game == ssd.Cleanup {
		return "default"
	}
	return "large"
}

// DefaultAgents is the number of agents of the paper's experiments.
const DefaultAgents = 10
