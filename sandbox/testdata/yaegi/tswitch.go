package policy

import (
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

type T struct{ A, B int }

func (t T) Sum() int { return t.A + t.B }

type U struct{ X int }

type S interface{ Sum() int }

// refused: type switch case U
func P_U_nobind() string {
	var x any = U{1}
	switch x.(type) {
	case U:
		return "yes"
	}
	return "no"
}

// refused: type switch case U
func P_U_bind() string {
	var x any = U{1}
	switch y := x.(type) {
	case U:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case U
func P_U_bind2() string {
	var x any = U{1}
	switch y := x.(type) {
	case string:
		return "str"
	case U:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case U
func P_U_list() string {
	var x any = U{1}
	switch x.(type) {
	case string, U:
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_T_nobind() string {
	var x any = T{1, 2}
	switch x.(type) {
	case T:
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_T_bind() string {
	var x any = T{1, 2}
	switch y := x.(type) {
	case T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_T_bind2() string {
	var x any = T{1, 2}
	switch y := x.(type) {
	case string:
		return "str"
	case T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_T_list() string {
	var x any = T{1, 2}
	switch x.(type) {
	case string, T:
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_PT_nobind() string {
	var x any = &T{1, 2}
	switch x.(type) {
	case *T:
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_PT_bind() string {
	var x any = &T{1, 2}
	switch y := x.(type) {
	case *T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_PT_bind2() string {
	var x any = &T{1, 2}
	switch y := x.(type) {
	case string:
		return "str"
	case *T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_PT_list() string {
	var x any = &T{1, 2}
	switch x.(type) {
	case string, *T:
		return "yes"
	}
	return "no"
}

// refused: type switch case *U
func P_PU_nobind() string {
	var x any = &U{1}
	switch x.(type) {
	case *U:
		return "yes"
	}
	return "no"
}

// refused: type switch case *U
func P_PU_bind() string {
	var x any = &U{1}
	switch y := x.(type) {
	case *U:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case *U
func P_PU_bind2() string {
	var x any = &U{1}
	switch y := x.(type) {
	case string:
		return "str"
	case *U:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case *U
func P_PU_list() string {
	var x any = &U{1}
	switch x.(type) {
	case string, *U:
		return "yes"
	}
	return "no"
}

// refused: type switch case S
func P_S_nobind() string {
	var x any = T{1, 2}
	switch x.(type) {
	case S:
		return "yes"
	}
	return "no"
}

// refused: type switch case S
func P_S_bind() string {
	var x any = T{1, 2}
	switch y := x.(type) {
	case S:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case S
func P_S_bind2() string {
	var x any = T{1, 2}
	switch y := x.(type) {
	case string:
		return "str"
	case S:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case S
func P_S_list() string {
	var x any = T{1, 2}
	switch x.(type) {
	case string, S:
		return "yes"
	}
	return "no"
}
func P_int_nobind() string {
	var x any = 3
	switch x.(type) {
	case int:
		return "yes"
	}
	return "no"
}
func P_int_bind() string {
	var x any = 3
	switch y := x.(type) {
	case int:
		_ = y
		return "yes"
	}
	return "no"
}
func P_int_bind2() string {
	var x any = 3
	switch y := x.(type) {
	case string:
		return "str"
	case int:
		_ = y
		return "yes"
	}
	return "no"
}
func P_int_list() string {
	var x any = 3
	switch x.(type) {
	case string, int:
		return "yes"
	}
	return "no"
}
func P_Pos_nobind() string {
	var x any = ssd.Pos{1, 2}
	switch x.(type) {
	case ssd.Pos:
		return "yes"
	}
	return "no"
}
func P_Pos_bind() string {
	var x any = ssd.Pos{1, 2}
	switch y := x.(type) {
	case ssd.Pos:
		_ = y
		return "yes"
	}
	return "no"
}
func P_Pos_bind2() string {
	var x any = ssd.Pos{1, 2}
	switch y := x.(type) {
	case string:
		return "str"
	case ssd.Pos:
		_ = y
		return "yes"
	}
	return "no"
}
func P_Pos_list() string {
	var x any = ssd.Pos{1, 2}
	switch x.(type) {
	case string, ssd.Pos:
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_TS_nobind() string {
	var x S = T{1, 2}
	switch x.(type) {
	case T:
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_TS_bind() string {
	var x S = T{1, 2}
	switch y := x.(type) {
	case T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_TS_bind2() string {
	var x S = T{1, 2}
	switch y := x.(type) {
	case *T:
		return "str"
	case T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_TS_list() string {
	var x S = T{1, 2}
	switch x.(type) {
	case *T, T:
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_PTS_nobind() string {
	var x S = &T{1, 2}
	switch x.(type) {
	case *T:
		return "yes"
	}
	return "no"
}

// refused: type switch case *T
func P_PTS_bind() string {
	var x S = &T{1, 2}
	switch y := x.(type) {
	case *T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_PTS_bind2() string {
	var x S = &T{1, 2}
	switch y := x.(type) {
	case T:
		return "str"
	case *T:
		_ = y
		return "yes"
	}
	return "no"
}

// refused: type switch case T
func P_PTS_list() string {
	var x S = &T{1, 2}
	switch x.(type) {
	case T, *T:
		return "yes"
	}
	return "no"
}
