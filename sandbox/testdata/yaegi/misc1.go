package policy

import (
	"errors"
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func (t T) swap() T                 { return T{t.B, t.A} }
func (t T) sum() int                { return t.A + t.B }
func (t *T) inc()                   { t.A++ }
func (t *T) get() int               { return t.A }
func two() (T, int)                 { return T{1, 2}, 3 }
func ret2() (T, int)                { x := 5; return T{x, x}, x + 1 }
func P_return2() string             { a, b := ret2(); return fmt.Sprint(a, b) }
func P_methval_single() string      { t := T{1, 2}; a := t.swap; t.A = 9; return fmt.Sprint(a()) }
func P_methval_ptr() string         { t := T{1, 2}; a := t.inc; a(); a(); return fmt.Sprint(t) }
func P_methval_ptrrecv_val() string { p := &T{1, 2}; a := p.sum; p.A = 100; return fmt.Sprint(a()) }
func P_methexpr() string            { f := T.sum; return fmt.Sprint(f(T{3, 4})) }
func P_methexpr_ptr() string        { f := (*T).inc; t := T{}; f(&t); return fmt.Sprint(t) }

type Inner struct{ X int }

func (i Inner) Get() int   { return i.X }
func (i *Inner) Set(x int) { i.X = x }

type Outer struct {
	Inner
	Y int
}
type Outer2 struct {
	*Inner
	Y int
}

func P_promoted() string     { o := Outer{Inner{1}, 2}; o.Set(5); return fmt.Sprint(o.Get(), o.X, o) }
func P_promoted_ptr() string { o := Outer2{&Inner{1}, 2}; o.Set(5); return fmt.Sprint(o.Get(), o.X) }
func P_promoted_val() string { o := Outer{Inner{1}, 2}; g := o.Get; o.X = 7; return fmt.Sprint(g()) }

type getter interface{ Get() int }

func P_iface_promoted() string { var g getter = Outer{Inner{4}, 1}; return fmt.Sprint(g.Get()) }

// refused: defer of anything but a function literal without
func P_defer_args() string {
	out := ""
	func() {
		x := 1
		defer func(v int) { out += fmt.Sprint("d", v, x) }(x)
		x = 2
	}()
	return out
}

// refused: defer inside a loop
func P_defer_loop() string {
	out := ""
	func() {
		for i := 0; i < 3; i++ {
			defer func() { out += fmt.Sprint(i) }()
		}
	}()
	return out
}

// refused: defer inside a loop
func P_defer_loop_range() string {
	out := ""
	func() {
		for _, i := range []int{4, 5, 6} {
			defer func() { out += fmt.Sprint(i) }()
		}
	}()
	return out
}

// refused: defer of anything but a function literal without
func P_defer_recv() string {
	out := ""
	func() {
		t := T{1, 2}
		defer func() { out += "|" }()
		defer fmt.Sprint(t.sum())
		t2 := t
		defer func(s int) { out += fmt.Sprint(s) }(t2.sum())
		t.A = 10
	}()
	return out
}
func (t T) appendTo(s *string) { *s += fmt.Sprint(t.A) }

// refused: defer of anything but a function literal without
func P_defer_method_recv() string {
	out := ""
	func() {
		t := T{1, 2}
		defer t.appendTo(&out)
		t.A = 10
	}()
	return out
}
func P_defer_named_result() string {
	f := func() (n int) {
		defer func() { n *= 2 }()
		return 3
	}
	return fmt.Sprint(f())
}

// refused: the value recovered from a panic is used
func P_recover_value() string {
	f := func() (s string) {
		defer func() {
			r := recover()
			s = fmt.Sprintf("%v %T", r, r)
		}()
		panic(T{1, 2})
	}
	return f()
}

// refused: the value recovered from a panic is used
func P_recover_err() string {
	f := func() (s string) {
		defer func() {
			r := recover()
			if e, ok := r.(error); ok {
				s = "err:" + e.Error()
			} else {
				s = fmt.Sprint("other:", r)
			}
		}()
		var a []int
		_ = a[5]
		return "no"
	}
	return f()
}

// refused: the value recovered from a panic is used
func P_recover_div() string {
	f := func() (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		z := 0
		return fmt.Sprint(1 / z)
	}
	return f()
}
func P_recover_nil() string {
	f := func() (s string) {
		defer func() { r := recover(); s = fmt.Sprint(r == nil) }()
		return "x"
	}
	return f()
}

// refused: the value recovered from a panic is used
func P_recover_string() string {
	f := func() (s string) {
		defer func() { r := recover(); s2, ok := r.(string); s = fmt.Sprint(s2, ok) }()
		panic("boom")
	}
	return f()
}

// refused: the value recovered from a panic is used
func P_recover_int() string {
	f := func() (s string) {
		defer func() { r := recover(); s2, ok := r.(int); s = fmt.Sprint(s2, ok) }()
		panic(42)
	}
	return f()
}

// refused: the value recovered from a panic is used
func P_recover_twice() string {
	f := func() (s string) {
		defer func() { s += fmt.Sprint(recover()) }()
		defer func() { s += fmt.Sprint(recover()) }()
		panic("a")
	}
	return f()
}

type myErr struct{ code int }

func (e *myErr) Error() string { return fmt.Sprint("code", e.code) }

func mayErr(fail bool) error {
	var p *myErr
	if fail {
		p = &myErr{3}
	}
	return p
}

// refused: a nil *myErr becomes an interface
func P_typed_nil() string { e := mayErr(false); return fmt.Sprint(e == nil, e != nil) }

// refused: a nil *myErr becomes an interface
func P_typed_nil2() string {
	var p *myErr
	var e error = p
	return fmt.Sprint(e == nil)
}

var errBase = errors.New("base")

type wrapErr struct{ err error }

func (w wrapErr) Error() string { return "wrap:" + w.err.Error() }
func (w wrapErr) Unwrap() error { return w.err }

// refused: errors.
func P_errors_is() string {
	e := wrapErr{errBase}
	var e2 error = e
	return fmt.Sprint(errors.Is(e2, errBase), errors.Unwrap(e2) == errBase, e2.Error())
}

// refused: errors.As
func P_errors_as() string {
	var e error = wrapErr{&myErr{7}}
	var me *myErr
	ok := errors.As(e, &me)
	code := -1
	if ok {
		code = me.code
	}
	return fmt.Sprint(ok, code)
}

// refused: errors.As
func P_errors_as_val() string {
	var e error = fmt.Errorf("x: %w", wrapErr{errBase})
	var we wrapErr
	ok := errors.As(e, &we)
	return fmt.Sprint(ok, errors.Is(e, errBase))
}

// refused: == compares values of interface type error
func P_errors_new_eq() string {
	a := errors.New("x")
	b := errors.New("x")
	return fmt.Sprint(a == b, a == a)
}
