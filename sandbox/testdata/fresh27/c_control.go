package policy

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

func P_switch_no_tag_fallthrough() string {
	out := ""
	for i := 0; i < 5; i++ {
		switch {
		case i < 2:
			out += "a"
			fallthrough
		case i < 4:
			out += "b"
		default:
			out += "c"
		}
	}
	return out
}
func P_switch_init_stmt() string {
	out := ""
	for i := 0; i < 4; i++ {
		switch x := i * i; x {
		case 0, 1:
			out += "s"
		case 4:
			out += "f"
		default:
			out += fmt.Sprint(x)
		}
	}
	return out
}
func P_labeled_continue_outer() string {
	n := 0
outer:
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			if j > i {
				continue outer
			}
			if i == 4 {
				break outer
			}
			n += j
		}
	}
	return fmt.Sprint(n)
}
func P_goto_loop() string {
	i, s := 0, 0
loop:
	if i < 5 {
		s += i
		i++
		goto loop
	}
	return fmt.Sprint(s)
}
func P_break_from_switch_in_loop() string {
	n := 0
	for i := 0; i < 10; i++ {
		switch i {
		case 3:
			break
		case 6:
			n += 100
		}
		n++
	}
	return fmt.Sprint(n)
}
func P_for_range_modify_slice() string {
	s := []int{1, 2, 3}
	for i, x := range s {
		if i == 0 {
			s = append(s, 10)
			s[2] = 30
		}
		s[i] = x * 2
	}
	return fmt.Sprint(s)
}
func P_range_over_array_copy() string {
	a := [3]int{1, 2, 3}
	out := ""
	for i, x := range a {
		a[2] = 9
		out += fmt.Sprint(i, x)
	}
	return out + fmt.Sprint(a)
}
func P_closure_counter() string {
	counter := func() func() int {
		c := 0
		return func() int { c++; return c }
	}
	a, b := counter(), counter()
	a()
	a()
	return fmt.Sprint(a(), b())
}
func P_defer_order_and_named_result() (s string) {
	defer func() { s += "!" }()
	s = "x"
	return s + "y"
}
func P_panic_recover_in_nested() string {
	f := func(n int) (r int) {
		defer func() {
			if recover() != nil {
				r = -1
			}
		}()
		a := []int{1, 2}
		return a[n]
	}
	return fmt.Sprint(f(1), f(5))
}
func P_early_return_in_loop() string {
	find := func(xs []int, t int) int {
		for i, x := range xs {
			if x == t {
				return i
			}
		}
		return -1
	}
	return fmt.Sprint(find([]int{4, 5, 6}, 6), find([]int{}, 1))
}
func P_infinite_for_with_break() string {
	i := 0
	for {
		i += 3
		if i > 20 {
			break
		}
	}
	return fmt.Sprint(i)
}
