package policy

// Values of the policy's types with methods held in interfaces of type
// any: yaegi compares equal ones as different and does not find them as
// map keys when they were converted implicitly (var a any = t, f(t),
// []any{t}, a == t), so == on interfaces and maps keyed by interfaces are
// refused. Type assertions and type switches on the built-in types agree.

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func (t T) Sum() int { return t.A + t.B }

type P struct{ X, Y int }

func (p *P) Inc() { p.X++ }

type U struct{ X int }

func id(x any) any { return x }

// refused: == compares values of interface type any
func P_var_converted() string {
	t := T{1, 2}
	var a any = t
	var b any = T{1, 2}
	return fmt.Sprint(a == b)
}

// refused: == compares values of interface type any
func P_pointer_method() string { p := P{1, 2}; var a any = p; var b any = p; return fmt.Sprint(a == b) }

// refused: == compares values of interface type any
func P_composite_elements() string { t := T{1, 2}; s := []any{t, t}; return fmt.Sprint(s[0] == s[1]) }

// refused: == compares values of interface type any
func P_call_argument() string { t := T{1, 2}; return fmt.Sprint(id(t) == id(t)) }

// refused: != compares values of interface type any
func P_mixed() string { t := T{1, 2}; var a any = t; return fmt.Sprint(a != t) }

// refused: == compares values of interface type any
func P_ints() string { x := 3; var a any = x; var b any = x; return fmt.Sprint(a == b) }

// refused: a map keyed by interface type any
func P_map_key_argument() string {
	t := T{1, 2}
	m := map[any]int{}
	put := func(k any) { m[k]++ }
	put(t)
	put(t)
	put(T{1, 2})
	return fmt.Sprint(len(m))
}

// refused: a map keyed by interface type any
func P_map_key_lookup() string {
	t := T{1, 2}
	m := map[any]int{t: 1}
	var k any = t
	_, ok := m[k]
	return fmt.Sprint(ok)
}

// refused: a switch on a value of interface type any
func P_switch_tag() string {
	var a any = T{1, 2}
	switch a {
	case any(T{1, 2}):
		return "same"
	}
	return "other"
}

func P_nil() string { var a any; t := T{1, 2}; b := any(t); return fmt.Sprint(a == nil, b != nil) }

func P_assert() string {
	t := T{1, 2}
	var a any = t
	b := a
	x, ok := b.(T)
	_, isU := a.(U)
	return fmt.Sprint(x.Sum(), ok, isU)
}

func P_builtin_switch() string {
	out := ""
	for _, x := range []any{1, "a", 2.5, ssd.Pos{1, 2}, nil, T{}} {
		switch y := x.(type) {
		case int:
			out += fmt.Sprint("i", y)
		case string, float64:
			out += fmt.Sprint("sf", y)
		case ssd.Pos:
			out += fmt.Sprint("p", y.R)
		case nil:
			out += "nil"
		default:
			out += "d"
		}
	}
	return out
}
