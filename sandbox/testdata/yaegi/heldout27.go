package policy

// The held-out probe of issue 27 and its neighbours: a map keyed by an
// anonymous struct, read inside the left operand of && (yaegi panicked
// in reflect: "call of reflect.Value.Bool on string Value"). The literal
// is now made by a function literal called at once, as keyed literals
// in logical operands are.

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type K struct{ r, c int }

func P_named() string {
	seen := map[K]int{}
	seen[K{1, 2}] = 5
	r, c := 1, 2
	return fmt.Sprint(seen[K{r, c}] > 0 && seen[K{r, c + 1}] == 0)
}
func P_anon_left_only() string {
	seen := map[struct{ r, c int }]int{}
	seen[struct{ r, c int }{1, 2}] = 5
	r, c := 1, 2
	return fmt.Sprint(seen[struct{ r, c int }{r, c}] > 0 && c == 2)
}
func P_anon_right_only() string {
	seen := map[struct{ r, c int }]int{}
	seen[struct{ r, c int }{1, 2}] = 5
	r, c := 1, 2
	return fmt.Sprint(c == 2 && seen[struct{ r, c int }{r, c}] > 0)
}
func P_array() string {
	seen := map[[2]int]int{}
	seen[[2]int{1, 2}] = 5
	r, c := 1, 2
	return fmt.Sprint(seen[[2]int{r, c}] > 0 && seen[[2]int{r, c + 1}] == 0)
}
func P_anon_var() string {
	seen := map[struct{ r, c int }]int{}
	seen[struct{ r, c int }{1, 2}] = 5
	k := struct{ r, c int }{1, 2}
	return fmt.Sprint(seen[k] > 0 && seen[k] == 5)
}
func P_anon_noand() string {
	seen := map[struct{ r, c int }]int{}
	seen[struct{ r, c int }{1, 2}] = 5
	r, c := 1, 2
	x := seen[struct{ r, c int }{r, c}] > 0
	return fmt.Sprint(x)
}
func P_int_lit_and() string {
	seen := map[int]int{3: 5}
	r := 3
	return fmt.Sprint(seen[r] > 0 && seen[r+1] == 0)
}
