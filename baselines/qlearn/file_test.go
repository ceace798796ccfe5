package qlearn

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// smallTable trains a quick table on a small map.
func smallTable(t testing.TB, game ssd.Game, seed uint64) *Table {
	t.Helper()
	m, err := envs.BuiltinMap(game, "small")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Train(context.Background(), Config{Map: m, MapName: "small", Agents: 3, Episodes: 2, MaxSteps: 150, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestFileRoundTrip(t *testing.T) {
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		tab := smallTable(t, game, 5)
		data, err := tab.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", game, err)
		}
		again, _ := back.MarshalJSON()
		if !bytes.Equal(data, again) {
			t.Fatalf("%s: the file changes when read and written again", game)
		}
		if back.Len() != tab.Len() || back.Game != game || back.Info != tab.Info {
			t.Fatalf("%s: read back %d states of %s, info %+v; wrote %d, %+v", game, back.Len(), back.Game, back.Info, tab.Len(), tab.Info)
		}
		for i := range tab.Len() {
			s1, q1 := tab.State(i)
			s2, q2 := back.State(i)
			for a := range q1 {
				if !same(q1[a], q2[a]) {
					t.Fatalf("%s: row %d state %v/%v action %d: %v read back as %v", game, i, s1, s2, a, q1[a], q2[a])
				}
			}
		}
		// Every line after the header is one entry.
		if lines := strings.Count(string(data), "\n{\"state\":"); lines != tab.Len() {
			t.Errorf("%s: %d entry lines for %d states", game, lines, tab.Len())
		}
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	a, _ := smallTable(t, ssd.Cleanup, 11).MarshalJSON()
	b, _ := smallTable(t, ssd.Cleanup, 11).MarshalJSON()
	c, _ := smallTable(t, ssd.Cleanup, 12).MarshalJSON()
	if !bytes.Equal(a, b) {
		t.Fatal("two trainings from seed 11 differ")
	}
	if bytes.Equal(a, c) {
		t.Fatal("seeds 11 and 12 train the same table")
	}
}

func TestParseRefusesBadFiles(t *testing.T) {
	good, err := smallTable(t, ssd.Gathering, 1).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	// edit replaces the first occurrence of old in the good file.
	edit := func(old, new string) string {
		if !strings.Contains(string(good), old) {
			t.Fatalf("the good file lacks %q", old)
		}
		return strings.Replace(string(good), old, new, 1)
	}
	// The first two entry lines, without their separating commas.
	lines := strings.Split(string(good), "\n")
	firstState, secondState := strings.TrimSuffix(lines[1], ","), strings.TrimSuffix(lines[2], ",")
	for _, c := range []struct {
		name, data, want string
		notTable         bool
	}{
		{"empty", "", "not a Q-table file", true},
		{"not JSON", "hello", "not a Q-table file", true},
		{"a policy source", "package policy\n", "not a Q-table file", true},
		{"other JSON", `{"game":"gathering"}`, `no "format" field`, true},
		{"unknown field", `{"format":"policyevolve-qtable/1","colour":1}`, `unknown field "colour"`, true},
		{"other format", edit(Format, "policyevolve-qtable/9"), `format "policyevolve-qtable/9"`, true},
		{"unknown game", edit(`"game":"gathering"`, `"game":"chess"`), `unknown game "chess"`, false},
		{"wrong features", edit(`"hit"]`, `"hits"]`), "are not gathering's", false},
		{"wrong actions", edit(`"actions":8`, `"actions":9`), "9 actions, gathering has 8", false},
		{"short state", edit(`{"state":[`, `{"state":[9,`), "state has 8 features, gathering has 7", false},
		{"state out of range", strings.Replace(string(good), firstState, `{"state":[0,9,0,0,0,0,0],"q":[0,0,0,0,0,0,0,0]}`, 1), "feature apple_dist = 9 out of range 0-3", false},
		{"duplicate state", strings.Replace(string(good), secondState, firstState, 1), "given twice", false},
		{"count", edit(`"states":`, `"states":1`), "header says 1", false},
		{"short row", strings.Replace(string(good), firstState, `{"state":[0,0,0,0,0,0,0],"q":[1,2]}`, 1), "2 values for 8 actions", false},
	} {
		_, err := Parse([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			continue
		}
		if errors.Is(err, ErrNotQTable) != c.notTable {
			t.Errorf("%s: errors.Is(err, ErrNotQTable) = %v", c.name, !c.notTable)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.name, err)
		}
	}
}

func TestActorRefusesTheOtherGame(t *testing.T) {
	tab := smallTable(t, ssd.Cleanup, 1)
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	env, err := envs.New(envs.Config{Map: m, Agents: 2, MaxSteps: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, err = envs.Run(context.Background(), env, []envs.Seat{{Actor: NewActor(tab), Agents: []int{0, 1}}}, envs.Options{})
	if err == nil || !strings.Contains(err.Error(), "trained on cleanup and cannot play gathering") {
		t.Fatalf("error %v", err)
	}
	if _, err := Evaluate(context.Background(), tab, m, 2, 10, []uint64{0}); err == nil {
		t.Fatal("Evaluate played a cleanup table on a gathering map")
	}
}

// FuzzParse: Parse never panics, and what it accepts writes back to a file
// it reads the same way.
func FuzzParse(f *testing.F) {
	good, _ := smallTable(f, ssd.Cleanup, 2).MarshalJSON()
	f.Add(good)
	f.Add([]byte(`{"format":"policyevolve-qtable/1","game":"gathering","features":["apple_step","apple_dist","local_apples","rival_dir","rival_dist","can_beam","hit"],"actions":8,"states":1,"entries":[{"state":[5,3,2,4,2,1,1],"q":[1,2,3,4,5,6,7,8]}]}`))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Parse(data)
		if err != nil {
			return
		}
		out, err := tab.MarshalJSON()
		if err != nil {
			t.Fatalf("accepted table does not marshal: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("written table does not parse: %v", err)
		}
		again, _ := back.MarshalJSON()
		if !bytes.Equal(out, again) {
			t.Fatal("write/read/write is not stable")
		}
	})
}
