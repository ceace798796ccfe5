package policy

// Composite literals with keys in the left operands of && and ||, and in
// the case lists of tagless switches (which the rewrite turns into ||):
// yaegi panicked (reflect: call of reflect.Value.Bool on string Value).
// Found by FuzzAgree (seeds 56 and 106).

import (
	"fmt"
	"ssd"
	"strings"
)

func Policy(v *ssd.View, agent int) int { return 0 }

func has(m map[int]bool) bool { return len(m) > 0 }

func P_or_in_case() string {
	h := 0
	switch {
	case has(map[int]bool{4: false}) || strings.Contains("3", "ab"):
		h = 1
	}
	return fmt.Sprint(h)
}

func P_case_list() string {
	h := 0
	for i := 0; i < 3; i++ {
		switch {
		case has(map[int]bool{4: false, -3: false}) && i == 1, strings.Contains("3", "ab"):
			h += 10
		case i == 2, has(map[int]bool{}):
			h++
		}
	}
	return fmt.Sprint(h)
}

func P_and() string {
	b := len(map[string]int{"a": 1}) > 0 && len("3") > 0
	return fmt.Sprint(b)
}

func P_or_and() string {
	b := len(map[ssd.Pos]int{{1, 2}: 1}) > 0 || len("3") > 0 && len(map[int]int{1: 1}) > 0
	return fmt.Sprint(b)
}

func P_case_list_first() string {
	h := 0
	for i := 0; i < 3; i++ {
		switch {
		case has(map[int]bool{4: false, -3: false}), strings.Contains("3", "ab"):
			h += 10
		case i == 2:
			h++
		}
	}
	return fmt.Sprint(h)
}

type node struct {
	hits int
	id   int
}

func g(x any, a node) bool { return a.id%2 == 0 }

func P_struct_in_case() string {
	n := 0
	for i := 0; i < 3; i++ {
		switch {
		case g(i, node{hits: 1, id: i}) || i == 1:
			n++
		}
	}
	return fmt.Sprint(n)
}

func P_struct_in_case_list() string {
	n := 0
	for i := 0; i < 3; i++ {
		switch {
		case g(i, node{hits: 1, id: i}), i == 1:
			n += 10
		case g(i, node{1, i}), g(i, node{}):
			n++
		}
	}
	return fmt.Sprint(n)
}

func P_nested_keys() string {
	n := 0
	for i := 0; i < 3; i++ {
		if len([]node{{id: i}, {hits: 2}}) > i && i != 1 {
			n++
		}
		if len([...]int{2: 5}) == 3 || i == 0 {
			n += 10
		}
	}
	return fmt.Sprint(n)
}

func P_local_type() string {
	type cell struct{ r, c int }
	n := 0
	for i := 0; i < 3; i++ {
		switch {
		case (cell{r: i} == cell{r: 1}) || i == 2:
			n++
		}
	}
	return fmt.Sprint(n)
}

func P_address() string {
	n := 0
	for i := 0; i < 3; i++ {
		if (&node{id: i}).id > 0 && i != 1 {
			n++
		}
		switch {
		case f(&node{id: i}), i == 0:
			n += 10
		}
	}
	return fmt.Sprint(n)
}

func f(p *node) bool { return p.id == 2 }
