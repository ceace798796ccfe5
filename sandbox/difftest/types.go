package difftest

import (
	"strconv"
	"strings"
)

// kind is the shape of a generated type.
type kind uint8

const (
	kInt kind = iota
	kInt8
	kInt16
	kInt32
	kInt64
	kUint8
	kUint16
	kUint32
	kUint64
	kUint
	kFloat64
	kFloat32
	kString
	kBool
	kStruct // a named struct: declared by the program, or one of ssd's
	kArray
	kSlice
	kMap
	kPtr  // pointer to a named struct
	kFunc // func(params) result, one result
	kAny  // the empty interface
)

type field struct {
	name     string
	t        *typ
	embedded bool
}

// typ is a type of the generated program. Basic types are shared
// singletons; composite ones compare by spelling (named ones by name).
type typ struct {
	k      kind
	name   string // named struct: its spelling ("cell", "ssd.Pos")
	fields []field
	elem   *typ // array, slice, pointer, map value
	key    *typ // map key
	n      int  // array length
	params []*typ
	result *typ
	// methods of a named struct declared by the program.
	methods []*method
	// ext marks a type of the ssd package: its fields may not be
	// extended and it has no generated methods.
	ext bool
}

type method struct {
	name   string
	ptr    bool // pointer receiver (mutates)
	params []*typ
	result *typ // nil: no result (pointer receivers only)
}

var (
	tInt     = &typ{k: kInt}
	tInt8    = &typ{k: kInt8}
	tInt16   = &typ{k: kInt16}
	tInt32   = &typ{k: kInt32}
	tInt64   = &typ{k: kInt64}
	tUint8   = &typ{k: kUint8}
	tUint16  = &typ{k: kUint16}
	tUint32  = &typ{k: kUint32}
	tUint64  = &typ{k: kUint64}
	tUint    = &typ{k: kUint}
	tFloat64 = &typ{k: kFloat64}
	tFloat32 = &typ{k: kFloat32}
	tString  = &typ{k: kString}
	tBool    = &typ{k: kBool}
	tAny     = &typ{k: kAny}

	tPos = &typ{k: kStruct, name: "ssd.Pos", ext: true,
		fields: []field{{name: "R", t: tInt}, {name: "C", t: tInt}}}
	tAgent = &typ{k: kStruct, name: "ssd.Agent", ext: true,
		fields: []field{{name: "ID", t: tInt}, {name: "Pos", t: tPos}, {name: "Orient", t: tInt},
			{name: "Timeout", t: tInt}, {name: "BeamHits", t: tInt}}}
)

var intKinds = []*typ{tInt, tInt8, tInt16, tInt32, tInt64, tUint8, tUint16, tUint32, tUint64, tUint}

func sliceOf(t *typ) *typ        { return &typ{k: kSlice, elem: t} }
func arrayOf(n int, t *typ) *typ { return &typ{k: kArray, n: n, elem: t} }
func mapOf(k, v *typ) *typ       { return &typ{k: kMap, key: k, elem: v} }
func ptrTo(t *typ) *typ          { return &typ{k: kPtr, elem: t} }
func funcOf(res *typ, params ...*typ) *typ {
	return &typ{k: kFunc, params: params, result: res}
}

func (t *typ) isInt() bool      { return t.k <= kUint }
func (t *typ) isUnsigned() bool { return t.k >= kUint8 && t.k <= kUint }
func (t *typ) isFloat() bool    { return t.k == kFloat64 || t.k == kFloat32 }
func (t *typ) isNumeric() bool  { return t.isInt() || t.isFloat() }
func (t *typ) ordered() bool    { return t.isNumeric() || t.k == kString }

// bits is the size of an integer type.
func (t *typ) bits() int {
	switch t.k {
	case kInt8, kUint8:
		return 8
	case kInt16, kUint16:
		return 16
	case kInt32, kUint32:
		return 32
	}
	return 64
}

// defaultKind reports whether an untyped constant of t's kind would get
// type t in a short variable declaration.
func (t *typ) defaultKind() bool {
	return t.k == kInt || t.k == kFloat64 || t.k == kString || t.k == kBool
}

func (t *typ) comparable() bool {
	switch t.k {
	case kSlice, kMap, kFunc:
		return false
	case kArray:
		return t.elem.comparable()
	case kStruct:
		for _, f := range t.fields {
			if !f.t.comparable() {
				return false
			}
		}
	}
	return true
}

// same reports type identity.
func (t *typ) same(u *typ) bool {
	if t == u {
		return true
	}
	if t.k != u.k {
		return false
	}
	switch t.k {
	case kStruct:
		return t.name == u.name
	case kArray:
		return t.n == u.n && t.elem.same(u.elem)
	case kSlice, kPtr:
		return t.elem.same(u.elem)
	case kMap:
		return t.key.same(u.key) && t.elem.same(u.elem)
	case kFunc:
		if len(t.params) != len(u.params) || !t.result.same(u.result) {
			return false
		}
		for i := range t.params {
			if !t.params[i].same(u.params[i]) {
				return false
			}
		}
		return true
	}
	return true
}

func (t *typ) String() string {
	switch t.k {
	case kInt:
		return "int"
	case kInt8:
		return "int8"
	case kInt16:
		return "int16"
	case kInt32:
		return "int32"
	case kInt64:
		return "int64"
	case kUint8:
		return "uint8"
	case kUint16:
		return "uint16"
	case kUint32:
		return "uint32"
	case kUint64:
		return "uint64"
	case kUint:
		return "uint"
	case kFloat64:
		return "float64"
	case kFloat32:
		return "float32"
	case kString:
		return "string"
	case kBool:
		return "bool"
	case kAny:
		return "any"
	case kStruct:
		return t.name
	case kArray:
		return "[" + strconv.Itoa(t.n) + "]" + t.elem.String()
	case kSlice:
		return "[]" + t.elem.String()
	case kMap:
		return "map[" + t.key.String() + "]" + t.elem.String()
	case kPtr:
		return "*" + t.elem.String()
	case kFunc:
		var ps []string
		for _, p := range t.params {
			ps = append(ps, p.String())
		}
		return "func(" + strings.Join(ps, ", ") + ") " + t.result.String()
	}
	panic("difftest: unknown kind")
}

// ident is a name-safe spelling of a type, for helper names.
func (t *typ) ident() string {
	r := strings.NewReplacer("[", "A", "]", "_", "*", "P", ".", "_", "(", "F", ")", "_", ",", "_", " ", "")
	return r.Replace(t.String())
}
