package envs

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs/ssd"
)

func TestParseMap(t *testing.T) {
	m, err := ParseMap(ssd.Cleanup, "t", "\n\n@@@@@\r\n@PAH\n@RS.@\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if m.Height != 3 || m.Width != 5 {
		t.Fatalf("size %dx%d, want 3x5", m.Height, m.Width)
	}
	if m.Text != "@@@@@\n@PAH\n@RS.@" {
		t.Errorf("Text = %q", m.Text)
	}
	// The short line is padded with an open cell at (1, 4).
	if m.Walls[1*5+4] {
		t.Error("padding cell is a wall")
	}
	want := []ssd.Pos{{R: 1, C: 3}, {R: 2, C: 1}}
	if !slices.Equal(m.River, want) || !slices.Equal(m.Dirty, []bool{true, false}) {
		t.Errorf("river %v dirty %v, want %v [true false]", m.River, m.Dirty, want)
	}
	if !slices.Equal(m.Apples, []ssd.Pos{{R: 1, C: 2}}) || !slices.Equal(m.Spawns, []ssd.Pos{{R: 1, C: 1}}) ||
		!slices.Equal(m.Stream, []ssd.Pos{{R: 2, C: 2}}) {
		t.Errorf("apples %v spawns %v stream %v", m.Apples, m.Spawns, m.Stream)
	}
}

func TestParseMapErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		game ssd.Game
		text string
		want string // expected error text
	}{
		{"empty", ssd.Gathering, "", "m.txt: empty map: no lines with cells"},
		{"blank", ssd.Gathering, "  \n\t\n", "m.txt: empty map: no lines with cells"},
		{"unknown", ssd.Gathering, "@@@\n@x@\n", `m.txt:2:2: unexpected character 'x' (want @ A P . or space)`},
		{"unknown after blank lines", ssd.Cleanup, "\n\n@@@\n@.#", `m.txt:4:3: unexpected character '#' (want @ A P H R S . or space)`},
		{"tab", ssd.Gathering, "@\t@", `m.txt:1:2: unexpected character '\t' (want @ A P . or space)`},
		{"utf8", ssd.Gathering, "@é@", `m.txt:1:2: unexpected character 'é' (want @ A P . or space)`},
		{"river in gathering", ssd.Gathering, "@@@\n@H@", `m.txt:2:2: 'H' is a Cleanup cell (river or stream); a gathering map has only @ A P . and space`},
		{"all walls", ssd.Gathering, "@@@\n@@@", "m.txt: no cell an agent can stand on: every cell is a wall"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMap(c.game, "m.txt", c.text)
			var me *MapError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *MapError", err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

func TestSpawnFallbackAndOpenCells(t *testing.T) {
	// No P: agents spawn on open non-apple cells near the border.
	m, err := ParseMap(ssd.Gathering, "t", "@@@@@@@\n@.....@\n@..A..@\n@.....@\n@.....@\n@.....@\n@@@@@@@")
	if err != nil {
		t.Fatal(err)
	}
	sp := m.spawnPoints()
	for _, p := range sp {
		if m.Walls[p.R*m.Width+p.C] || (p.R == 2 && p.C == 3) {
			t.Fatalf("spawn point %v is a wall or apple", p)
		}
		if !(p.R <= 1 || p.R >= m.Height-2 || p.C <= 1 || p.C >= m.Width-2) {
			t.Fatalf("spawn point %v is not near the border", p)
		}
	}
	if slices.Contains(sp, ssd.Pos{R: 3, C: 3}) || !slices.Contains(sp, ssd.Pos{R: 1, C: 1}) {
		t.Fatalf("spawn points %v", sp)
	}
	// Cleanup's extra agents never start on river or stream cells.
	c, _ := BuiltinMap(ssd.Cleanup, "small")
	for _, p := range c.openCells() {
		if slices.Contains(c.River, p) || slices.Contains(c.Stream, p) || slices.Contains(c.Apples, p) {
			t.Fatalf("open cell %v is river, stream or apple", p)
		}
	}
}

func TestNewRejectsUnplaceableAgents(t *testing.T) {
	m, err := ParseMap(ssd.Gathering, "tiny.txt", "@@@\n@P@\n@@@")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Map: m, Agents: 1}); err != nil {
		t.Fatal(err)
	}
	// The only cell is a spawn point; open cells exclude nothing here, so a
	// second agent shares it (as in the reference).
	if _, err := New(Config{Map: m, Agents: 2}); err != nil {
		t.Fatal(err)
	}
	// A map whose only open cell is an apple has no open cell for agents.
	m2, _ := ParseMap(ssd.Gathering, "apple.txt", "@@@@\n@PA@\n@@@@")
	m2.Spawns = nil
	m2.Walls[1*4+1] = true
	if _, err := New(Config{Map: m2, Agents: 1}); err == nil ||
		!strings.Contains(err.Error(), "apple.txt: 1 agents need 1 more cells") {
		t.Fatalf("got %v", err)
	}
}

// FuzzParseMap checks that the parser never panics and that what it accepts
// is consistent: every cell list is inside the grid and the map builds an
// environment that runs a few steps.
func FuzzParseMap(f *testing.F) {
	for _, g := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		for _, n := range BuiltinMaps(g) {
			m, _ := BuiltinMap(g, n)
			f.Add(uint8(g), m.Text)
		}
	}
	f.Add(uint8(0), "")
	f.Add(uint8(1), "@@@\n@HP\n@RS.")
	f.Add(uint8(0), "\r\n@x\n")
	f.Fuzz(func(t *testing.T, g uint8, text string) {
		game := ssd.Game(g % 2)
		if len(text) > 4096 {
			return
		}
		m, err := ParseMap(game, "fuzz", text)
		if err != nil {
			var me *MapError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *MapError", err)
			}
			return
		}
		if m.Height < 1 || m.Width < 1 || len(m.Walls) != m.Height*m.Width {
			t.Fatalf("inconsistent size %dx%d with %d cells", m.Height, m.Width, len(m.Walls))
		}
		for _, ps := range [][]ssd.Pos{m.Apples, m.Spawns, m.River, m.Stream} {
			for _, p := range ps {
				if p.R < 0 || p.R >= m.Height || p.C < 0 || p.C >= m.Width || m.Walls[p.R*m.Width+p.C] {
					t.Fatalf("cell %v outside the grid or on a wall", p)
				}
			}
		}
		env, err := New(Config{Map: m, Agents: 3, MaxSteps: 5})
		if err != nil {
			return // e.g. no open cell for the agents
		}
		env.Reset(1)
		acts := []int{ssd.Forward, ssd.Beam, ssd.StepLeft}
		for !env.Done() {
			if _, err := env.Step(acts); err != nil {
				t.Fatal(err)
			}
		}
	})
}
