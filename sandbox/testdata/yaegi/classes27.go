package policy

// The six classes of silent differences of issue 27, one probe or more
// each: assertions and type switches yaegi cannot decide (refused by the
// subset), interface values inside struct fields compared or used as map
// keys (refused), float-to-integer conversions out of range (one defined
// result on every backend), float32 of 64-bit integers and shifts by a
// negative count (rewritten for yaegi).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type NotFound struct{ K int }

func (e *NotFound) Error() string { return "nf" }

type Invalid struct{ K int }

func (e *Invalid) Error() string { return "inv" }

type Meters int

func find(k int) error {
	if k > 0 {
		return &Invalid{k}
	}
	return &NotFound{k}
}

// class 1
// refused: type assertion to *policy.NotFound, which the interpreter cannot tell from *Invalid
func P_assert_ptr_same_underlying() string {
	err := find(3)
	_, ok := err.(*NotFound)
	return fmt.Sprint(ok)
}

// class 1
// refused: type assertion to int, which the interpreter cannot tell from Meters
func P_assert_named_int() string {
	var x any = Meters(3)
	_, ok := x.(int)
	return fmt.Sprint(ok)
}

// class 2
// refused: type switch case int: yaegi cannot tell a value of type int from one of type Meters
func P_tswitch_builtin_named() string {
	var x any = Meters(3)
	switch x.(type) {
	case int:
		return "int"
	}
	return "other"
}

type Box struct {
	V any
	N int
}

// class 3
// refused: == on policy.Box, which holds an interface value
func P_iface_field_eq() string {
	a := Box{V: int32(1), N: 1}
	b := Box{V: int64(1), N: 1}
	return fmt.Sprint(a == b)
}

// class 3
// refused: a map keyed by policy.Box, which holds an interface value
func P_iface_field_mapkey() string {
	m := map[Box]int{}
	m[Box{V: int32(1)}]++
	m[Box{V: int64(1)}]++
	return fmt.Sprint(len(m))
}

// class 4
func P_f2i() string {
	f := 3e9
	g := 3e9 + 7
	h := 1e19
	return fmt.Sprint(int32(f), int8(g), uint32(h))
}

// class 5
func P_f32_int64() string {
	x := int64(1<<53 + 1<<29 + 1)
	u := uint64(1<<63 + 1<<39 + 1)
	return fmt.Sprint(float32(x), float32(u))
}

// class 6
func P_neg_shift() string {
	s := -1
	defer func() {
		if recover() != nil {
		}
	}()
	return fmt.Sprint(1 << s)
}

// held out
func P_anon_key_and() string {
	m := map[struct{ A, B int }]bool{{1, 2}: true}
	a, b := 1, 2
	ok := true
	return fmt.Sprint(ok && m[struct{ A, B int }{a, b}])
}
