package policy

// Constant and converted conditions: yaegi took case bool(false): of a
// tagless switch (the form the rewrite gave a folded constant such as
// !(true || true)), and if bool(b), for bool(b) with b false, as true.
// Found by FuzzAgree (seed 133).

import (
	"fmt"
	"ssd"
)

func Policy(v *ssd.View, agent int) int { return 0 }

func P_case_not_or() string {
	x := 0
	switch {
	case !(true || true):
		x = 1
	}
	return fmt.Sprint(x)
}
func P_if_not_or() string {
	x := 0
	if !(true || true) {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_value_not_or() string { b := !(true || true); return fmt.Sprint(b) }
func P_case_not() string {
	x := 0
	switch {
	case !true:
		x = 1
	}
	return fmt.Sprint(x)
}
func P_case_and() string {
	x := 0
	switch {
	case false:
		x = 1
	case true && false:
		x = 2
	}
	return fmt.Sprint(x)
}
func P_case_variables() string {
	x := 0
	t := true
	switch {
	case !(t || t):
		x = 1
	}
	return fmt.Sprint(x)
}
func P_case_paren_false() string {
	x := 0
	switch {
	case (false):
		x = 1
	}
	return fmt.Sprint(x)
}
func P_tag_constants() string {
	out := ""
	for i := int8(0); i < 4; i++ {
		switch i {
		case 1 + 1:
			out += "a"
		case int8(3):
			out += "b"
		default:
			out += "d"
		}
	}
	return out
}
func P_case_named_constant() string {
	x := 0
	const c = 2
	switch {
	case c > 3:
		x = 1
	case c < 1, c == 5:
		x = 2
	}
	return fmt.Sprint(x)
}

type myBool bool

func P_case_conversions() string {
	x := 0
	switch {
	case bool(myBool(false)):
		x = 1
	case bool(false):
		x = 2
	}
	return fmt.Sprint(x)
}
func P_conversion_value() string { var mb myBool; b := bool(mb); return fmt.Sprint(b) }
func P_if_conversion() string {
	var mb myBool
	x := 0
	if bool(mb) {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_if_named() string {
	var mb myBool
	x := 0
	if mb {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_if_not_named() string {
	var mb myBool
	x := 0
	if !mb {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_if_bool_conversion() string {
	b := false
	x := 0
	if bool(b) {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_conversion_operand() string {
	var mb myBool = true
	x := 0
	if bool(mb) && false {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_conversion_variable() string {
	var mb myBool
	x := 0
	b := bool(mb)
	if b {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_conversion_compared() string {
	b := false
	x := 0
	if bool(b) == true {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_if_paren_conversion() string {
	b := false
	x := 0
	if bool(b) {
		x = 1
	}
	return fmt.Sprint(x)
}
func P_for_conversion_operand() string {
	b := false
	x := 0
	for i := 0; bool(b) && i < 3; i++ {
		x++
	}
	return fmt.Sprint(x)
}
func P_for_conversion() string {
	b := false
	x := 0
	for bool(b) {
		x++
		break
	}
	return fmt.Sprint(x)
}
func P_case_conversion() string {
	b := false
	x := 0
	switch {
	case bool(b):
		x = 1
	}
	return fmt.Sprint(x)
}
func P_tag_conversion() string {
	b := false
	x := 0
	switch bool(b) {
	case true:
		x = 1
	}
	return fmt.Sprint(x)
}
