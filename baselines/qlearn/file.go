package qlearn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"policyevolve/envs/ssd"
)

// Format identifies a Q-table file.
const Format = "policyevolve-qtable/1"

// header is a Q-table file without its entries.
type header struct {
	Format   string   `json:"format"`
	Game     string   `json:"game"`
	Info     Info     `json:"trained"`
	Features []string `json:"features"`
	Actions  int      `json:"actions"`
	States   int      `json:"states"`
}

// file is a whole Q-table file.
type file struct {
	header
	Entries []entry `json:"entries"`
}

// entry is one row: a state's feature tuple and its action values.
type entry struct {
	State []int     `json:"state"`
	Q     []float64 `json:"q"`
}

// MarshalJSON writes the table in its file format: a header line (format,
// game, how it was trained, the feature names, the numbers of actions and
// states), then one entry per line, {"state":[…],"q":[…]}, in row order.
// Values are written in the shortest form that reads back to the same
// float64. The output is a function of the table alone, so equal tables
// give equal bytes (and one content address in the store).
func (t *Table) MarshalJSON() ([]byte, error) {
	h, err := json.Marshal(header{Format: Format, Game: t.Game.String(), Info: t.Info,
		Features: t.sp.names, Actions: t.actions, States: t.Len()})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(h[:len(h)-1])
	b.WriteString(`,"entries":[`)
	for i := range t.keys {
		tuple, q := t.State(i)
		line, err := json.Marshal(entry{State: tuple, Q: q})
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(line)
	}
	b.WriteString("\n]}\n")
	return b.Bytes(), nil
}

// ErrNotQTable is data that is not a Q-table file at all.
var ErrNotQTable = errors.New("not a Q-table file")

// Parse reads a Q-table file, checking everything a player relies on: the
// format, a known game, the feature names and action count of that game,
// every state tuple in range and given once, and one value per action.
func Parse(data []byte) (*Table, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotQTable, err)
	}
	if f.Format != Format {
		if f.Format == "" {
			return nil, fmt.Errorf("%w: no \"format\" field", ErrNotQTable)
		}
		return nil, fmt.Errorf("%w: format %q (want %q)", ErrNotQTable, f.Format, Format)
	}
	game, err := ssd.ParseGame(f.Game)
	if err != nil {
		return nil, fmt.Errorf("q-table: %w", err)
	}
	t := NewTable(game)
	t.Info = f.Info
	if err := t.Info.Params.Validate(); err != nil {
		return nil, fmt.Errorf("q-table: params: %w", err)
	}
	if !slices.Equal(f.Features, t.sp.names) {
		return nil, fmt.Errorf("q-table: features %s are not %s's (%s)",
			strings.Join(f.Features, ","), game, strings.Join(t.sp.names, ","))
	}
	if f.Actions != t.actions {
		return nil, fmt.Errorf("q-table: %d actions, %s has %d", f.Actions, game, t.actions)
	}
	if f.States != len(f.Entries) {
		return nil, fmt.Errorf("q-table: header says %d states, the file has %d entries", f.States, len(f.Entries))
	}
	for i, e := range f.Entries {
		if len(e.State) != len(t.sp.radix) {
			return nil, fmt.Errorf("q-table: entry %d: state has %d features, %s has %d", i, len(e.State), game, len(t.sp.radix))
		}
		for k, v := range e.State {
			if v < 0 || v >= t.sp.radix[k] {
				return nil, fmt.Errorf("q-table: entry %d: feature %s = %d out of range 0-%d", i, t.sp.names[k], v, t.sp.radix[k]-1)
			}
		}
		if len(e.Q) != t.actions {
			return nil, fmt.Errorf("q-table: entry %d: %d values for %d actions", i, len(e.Q), t.actions)
		}
		key := t.sp.encode(e.State)
		if t.row[key] >= 0 {
			return nil, fmt.Errorf("q-table: entry %d: state %v given twice", i, e.State)
		}
		copy(t.values(key), e.Q)
	}
	return t, nil
}
