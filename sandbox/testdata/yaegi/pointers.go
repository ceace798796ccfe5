package policy

// Elements of composite literals without keys that select a field through
// an index of a pointer: yaegi failed to load the policy (a nil pointer
// dereference in its type checker). Found by FuzzAgree (seed 36).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

type W struct {
	P *[2]ssd.Pos
	S *[]T
}

type named int

type N struct{ X named }

func P_pointer_array() string {
	arr := [3]ssd.Pos{{1, 2}}
	pa := &arr
	x := ssd.Pos{pa[0].R, 1}
	y := ssd.Pos{(*pa)[1].C, (*pa)[0].C}
	return fmt.Sprint(x, y)
}

func P_pointer_slice() string {
	s := []T{{1, 2}}
	ps := &s
	x := T{(*ps)[0].A, 1}
	return fmt.Sprint(x)
}

func P_slice_literal() string {
	arr := [3]ssd.Pos{{1, 2}, {3, 4}}
	pa := &arr
	x := []int{pa[0].R, pa[1].C, 7}
	z := [2]ssd.Pos{pa[1], ssd.Pos{pa[1].R, 0}}
	return fmt.Sprint(x, z)
}

func P_fields() string {
	a := [2]ssd.Pos{{5, 6}}
	s := []T{{7, 8}}
	w := W{P: &a, S: &s}
	x := ssd.Pos{w.P[0].R, (*w.S)[0].B}
	return fmt.Sprint(x)
}

func P_named_field() string {
	ns := [1]N{{X: 4}}
	p := &ns
	x := N{p[0].X}
	return fmt.Sprint(x)
}

func P_keyed() string {
	arr := [3]ssd.Pos{{1, 2}}
	pa := &arr
	x := ssd.Pos{R: pa[0].R, C: 1}
	return fmt.Sprint(x)
}
