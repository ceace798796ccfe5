package policy

import (
	"errors"
	"fmt"
	"ssd"
	"strconv"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type Animal interface{ Sound() string }
type Dog struct{ name string }
type Cat struct{ name string }

func (d Dog) Sound() string  { return d.name + ":woof" }
func (c *Cat) Sound() string { return c.name + ":meow" }

type Stack struct{ items []int }

func (s *Stack) Push(x int) { s.items = append(s.items, x) }
func (s *Stack) Pop() int {
	x := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return x
}

type MyErr struct{ Code int }

func (e MyErr) Error() string { return "code " + strconv.Itoa(e.Code) }

type Level int

func (l Level) String() string { return "L" + strconv.Itoa(int(l)) }

func P_iface_value_and_ptr_receivers() string {
	as := []Animal{Dog{"rex"}, &Cat{"tom"}}
	out := ""
	for _, a := range as {
		out += a.Sound() + " "
	}
	return out
}
func P_assert_concrete_from_iface() string {
	var a Animal = Dog{"rex"}
	d, ok := a.(Dog)
	_, ok2 := a.(*Cat)
	return fmt.Sprint(d.name, ok, ok2)
}
func P_type_switch_on_animals() string {
	as := []Animal{Dog{"a"}, &Cat{"b"}, nil}
	out := ""
	for _, a := range as {
		switch x := a.(type) {
		case Dog:
			out += "D" + x.name
		case *Cat:
			out += "C" + x.name
		case nil:
			out += "N"
		}
	}
	return out
}
func P_error_custom_type_return() string {
	f := func(n int) error {
		if n < 0 {
			return MyErr{n}
		}
		return nil
	}
	err := f(-2)
	return fmt.Sprint(err != nil, err.Error(), f(1) == nil)
}
func P_errors_new_compare() string {
	e1 := errors.New("x")
	e2 := errors.New("x")
	return fmt.Sprint(e1 == e2, e1 == e1)
}
func P_method_on_named_int() string {
	ls := []Level{1, 5, 10}
	out := ""
	for _, l := range ls {
		out += l.String()
	}
	return out
}
func P_stack_methods() string {
	s := &Stack{}
	for i := 0; i < 4; i++ {
		s.Push(i * i)
	}
	a := s.Pop()
	b := s.Pop()
	return fmt.Sprint(a, b, len(s.items))
}
func P_method_value_bound_early() string {
	s := Stack{}
	push := s.Push
	push(1)
	push(2)
	return fmt.Sprint(s.items)
}
func P_empty_interface_holding_slice() string {
	var x any = []int{1, 2, 3}
	s, ok := x.([]int)
	return fmt.Sprint(len(s), ok)
}
func P_any_holding_func() string {
	var f any = func(a int) int { return a * 3 }
	g, ok := f.(func(int) int)
	return fmt.Sprint(g(4), ok)
}
func P_interface_nil_vs_typed_nil() string {
	var c *Cat
	var a Animal = c
	return fmt.Sprint(a == nil, c == nil)
}
func P_embedded_interface_struct() string {
	type loud struct {
		Animal
		volume int
	}
	l := loud{Dog{"max"}, 3}
	return fmt.Sprint(l.Sound(), l.volume)
}
