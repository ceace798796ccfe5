package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func (t T) Sum() int { return t.A + t.B }

type S interface{ Sum() int }

type E struct{ code int }

func (e *E) Error() string { return "E" + fmt.Sprint(e.code) }

func guard(p *E, line int) *E {
	if p == nil {
		panic("nil")
	}
	return p
}
func mk() error         { p := &E{3}; return guard(p, 1) }
func P_guarded() string { err := mk(); return fmt.Sprint(err != nil, err.Error()) }

// refused: a value of type policy.T assigned to x
func P_any_paren() string { var x any; var n int; x, n = (T{A: 1}), 2; return fmt.Sprint(x, n) }

// refused: a value of type policy.T assigned to x
func P_any_conv() string { var x any; var n int; x, n = any(T{A: 1}), 2; return fmt.Sprint(x, n) }

// refused: a value of type policy.T assigned to x
func P_any_conv2() string { var x any; var n int; x, n = any((T{A: 1})), 2; return fmt.Sprint(x, n) }

// refused: a value of type policy.T assigned to x
func P_S_paren() string { var x S; var n int; x, n = (T{A: 1}), 2; return fmt.Sprint(x.Sum(), n) }

// refused: a value of type policy.T assigned to x
func P_S_conv() string { var x S; var n int; x, n = S(T{A: 1}), 2; return fmt.Sprint(x.Sum(), n) }

// refused: a value of type policy.T assigned to x
func P_any_var() string    { var x any; t := T{A: 1}; var n int; x, n = t, 2; return fmt.Sprint(x, n) }
func P_any_int() string    { var x any; var n int; x, n = 5, 2; return fmt.Sprint(x, n) }
func P_any_call() string   { var x any; var n int; x, n = (fmt.Sprint(1)), 2; return fmt.Sprint(x, n) }
func P_any_single() string { var x any; x = (T{A: 1}); y, ok := x.(T); return fmt.Sprint(y, ok) }

// refused: a value of type policy.T assigned to x
func P_any_define() string { x, n := any(T{A: 1}), 2; return fmt.Sprint(x, n) }
func P_any_slice() string  { var x any; var n int; x, n = ([]int{1}), 2; return fmt.Sprint(x, n) }

// refused: a value of type policy.T assigned to x
func P_S_var() string { var x S; t := T{A: 1}; var n int; x, n = t, 2; return fmt.Sprint(x.Sum(), n) }
