package policy

import (
	"errors"
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

var _ = errors.New

type T struct{ A, B int }

func (t T) Sum() int { return t.A + t.B }

type U struct{ X int }

type S interface{ Sum() int }

type E struct{ code int }

func (e *E) Error() string { return "E" }

type EV struct{ code int }

func (e EV) Error() string { return "EV" }

func retNilPtr() error  { var p *E; return p }
func retNilPtrAny() any { var p *E; return p }
func retNilPtrU() any   { var p *U; return p }

// refused: a nil *E becomes an interface
func P_nil_err() string       { return fmt.Sprint(retNilPtr() == nil) }
func P_nil_any() string       { return fmt.Sprint(retNilPtrAny() == nil) }
func P_nil_anyU() string      { return fmt.Sprint(retNilPtrU() == nil) }
func P_nil_var() string       { var p *U; var x any = p; return fmt.Sprint(x == nil) }
func P_nil_slice() string     { var s []int; var x any = s; return fmt.Sprint(x == nil) }
func P_nil_map() string       { var s map[int]int; var x any = s; return fmt.Sprint(x == nil) }
func P_nil_func() string      { var s func(); var x any = s; return fmt.Sprint(x == nil) }
func P_nil_arg() string       { var p *U; f := func(x any) bool { return x == nil }; return fmt.Sprint(f(p)) }
func P_nil_slice_any() string { var p *U; xs := []any{p}; return fmt.Sprint(xs[0] == nil) }

// refused: == compares values of interface type policy.S
func P_eq_T() string { var a, b S = T{1, 2}, T{1, 2}; return fmt.Sprint(a == b) }

// refused: == compares values of interface type any
func P_eq_T_any() string { var a, b any = T{1, 2}, T{1, 2}; return fmt.Sprint(a == b) }

// refused: == compares values of interface type any
func P_eq_U_any() string { var a, b any = U{1}, U{1}; return fmt.Sprint(a == b) }

// refused: == compares values of interface type any
func P_eq_T_vs_lit() string { var a any = T{1, 2}; return fmt.Sprint(a == T{1, 2}) }

// refused: == compares values of interface type error
func P_eq_EV() string { var a, b error = EV{1}, EV{1}; return fmt.Sprint(a == b) }

// refused: == compares values of interface type any
func P_eq_int() string { var a, b any = 3, 3; return fmt.Sprint(a == b) }

// refused: == compares values of interface type any
func P_eq_Pos() string { var a, b any = ssd.Pos{1, 2}, ssd.Pos{1, 2}; return fmt.Sprint(a == b) }

// refused: == compares values of interface type error
func P_eq_ptr_err() string { e := &E{1}; var a, b error = e, e; return fmt.Sprint(a == b) }

// refused: a map keyed by interface type any
func P_map_key_T() string { m := map[any]int{}; m[T{1, 2}]++; m[T{1, 2}]++; return fmt.Sprint(len(m)) }

// refused: a map keyed by interface type policy.S
func P_map_key_S() string { m := map[S]int{}; m[T{1, 2}]++; m[T{1, 2}]++; return fmt.Sprint(len(m)) }

// refused: errors.Is
func P_errors_is_ptr() string {
	e := &E{1}
	var err error = e
	return fmt.Sprint(errors.Is(err, e), err == error(e))
}

// refused: errors.Is
func P_errors_is_sentinel() string {
	s := errors.New("x")
	var err error = s
	return fmt.Sprint(errors.Is(err, s))
}

// refused: errors.Is
func P_errors_is_val() string {
	var err error = EV{1}
	return fmt.Sprint(errors.Is(err, EV{1}))
}
func P_iface_method_call() string {
	var s S = T{1, 2}
	ss := []S{T{3, 4}, T{5, 6}}
	tot := s.Sum()
	for _, x := range ss {
		tot += x.Sum()
	}
	return fmt.Sprint(tot)
}
func P_type_assert_T() string     { var s S = T{1, 2}; t, ok := s.(T); return fmt.Sprint(t, ok) }
func P_type_assert_any_T() string { var s any = T{1, 2}; t, ok := s.(T); return fmt.Sprint(t, ok) }

// refused: type assertion to the interface type S
func P_type_assert_any_S() string {
	var s any = T{1, 2}
	t, ok := s.(S)
	return fmt.Sprint(t != nil, ok)
}

// refused: type switch case U
func P_switch_U() string {
	var x any = U{1}
	switch x.(type) {
	case U:
		return "U"
	}
	return "none"
}

// refused: type switch case T
func P_switch_T() string {
	var x any = T{1, 2}
	switch x.(type) {
	case T:
		return "T"
	}
	return "none"
}

// refused: type switch case *T
func P_switch_ptrT() string {
	var x any = &T{1, 2}
	switch x.(type) {
	case *T:
		return "*T"
	}
	return "none"
}

// refused: type switch case S
func P_switch_S() string {
	var x any = T{1, 2}
	switch x.(type) {
	case S:
		return "S"
	}
	return "none"
}

// refused: type switch case *E
func P_switch_err() string {
	var x error = &E{}
	switch x.(type) {
	case *E:
		return "*E"
	}
	return "none"
}

// refused: type switch case EV
func P_switch_errv() string {
	var x error = EV{}
	switch y := x.(type) {
	case EV:
		return "EV" + fmt.Sprint(y.code)
	}
	return "none"
}
