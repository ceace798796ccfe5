package sandbox

// The subset of Go the yaegi backend runs. Every construct of a policy
// falls under one row of this table; a policy is interpreted only when
// every row it uses is allowed, and a refusal names the row. A row is
// allowed because the differential tests cover it — the probes in
// testdata/yaegi and the programs of package difftest, compared on both
// backends (TestSubsetEvidence checks that each allowed row is used by
// probes or generated programs that agree) — never because it might
// work. Whatever no row describes falls under X1 and is refused.
// docs/yaegi.md, "The subset", prints this table (TestSubsetDocumented).

// rowID names a row of the subset table.
type rowID string

// subsetRow is one row of the table.
type subsetRow struct {
	ID        rowID
	Construct string
	// How the yaegi backend treats it: "as Go", "rewritten" (into Go it
	// runs as the compiler does), or "refused" with the reason.
	How     string
	Allowed bool
	// Both: a refusal on every backend (what the machines themselves do
	// not agree on), not only on yaegi.
	Both bool
}

const (
	rowPkgDecl       rowID = "D1"
	rowMethod        rowID = "D2"
	rowLocalDecl     rowID = "D3"
	rowLocalType     rowID = "D4"
	rowInit          rowID = "D5"
	rowGeneric       rowID = "D6"
	rowAlias         rowID = "D7"
	rowIfaceDecl     rowID = "D8"
	rowExprStmt      rowID = "S1"
	rowAssign        rowID = "S2"
	rowOpAssign      rowID = "S3"
	rowIncDec        rowID = "S4"
	rowIf            rowID = "S5"
	rowFor           rowID = "S6"
	rowRangeSeq      rowID = "S7"
	rowRangeMap      rowID = "S8"
	rowRangeString   rowID = "S9"
	rowRangeInt      rowID = "S10"
	rowRangeFunc     rowID = "S11"
	rowSwitch        rowID = "S12"
	rowSwitchIface   rowID = "S13"
	rowDefaultFirst  rowID = "S14"
	rowTypeSwitch    rowID = "S15"
	rowTypeSwitchBad rowID = "S24"
	rowAssignForm    rowID = "S25"
	rowClearNaN      rowID = "B5"
	rowBranch        rowID = "S16"
	rowGotoBlock     rowID = "S17"
	rowReturn        rowID = "S18"
	rowDeferLit      rowID = "S19"
	rowDeferOther    rowID = "S20"
	rowBlock         rowID = "S21"
	rowConcurrency   rowID = "S22"
	rowLoopVarChange rowID = "S23"
	rowBasicLit      rowID = "E1"
	rowCompositeLit  rowID = "E2"
	rowFuncLit       rowID = "E3"
	rowField         rowID = "E4"
	rowMethodCall    rowID = "E5"
	rowMethodValue   rowID = "E6"
	rowIndex         rowID = "E7"
	rowSlice         rowID = "E8"
	rowSlice3        rowID = "E9"
	rowCall          rowID = "E10"
	rowUnary         rowID = "E11"
	rowArith         rowID = "E12"
	rowShiftConst    rowID = "E13"
	rowShiftVar      rowID = "E14"
	rowShiftAssign   rowID = "E24"
	rowNilIface      rowID = "E25"
	rowRangePtrArr   rowID = "S26"
	rowSwitchLabel   rowID = "S27"
	rowEmbedIface    rowID = "T7"
	rowCompare       rowID = "E15"
	rowCompareComp   rowID = "E16"
	rowCompareIface  rowID = "E17"
	rowCompareZero   rowID = "E18"
	rowLogical       rowID = "E19"
	rowAssertSafe    rowID = "E20"
	rowAssertAmbig   rowID = "E21"
	rowAssertIface   rowID = "E22"
	rowOrder         rowID = "E23"
	rowConvInt       rowID = "C1"
	rowConvIntFloat  rowID = "C2"
	rowConvFloatInt  rowID = "C3"
	rowConvFloat     rowID = "C4"
	rowConvString    rowID = "C5"
	rowConvNamed     rowID = "C6"
	rowConvIface     rowID = "C7"
	rowConvOther     rowID = "C8"
	rowConvTypeParam rowID = "C9"
	rowBasicTypes    rowID = "T1"
	rowComplex       rowID = "T2"
	rowComposite     rowID = "T3"
	rowIfaceType     rowID = "T4"
	rowMapKey        rowID = "T5"
	rowMapKeyIface   rowID = "T6"
	rowBuiltin       rowID = "B1"
	rowBuiltinNew    rowID = "B2"
	rowRecoverValue  rowID = "B3"
	rowBuiltinOther  rowID = "B4"
	rowStd           rowID = "P1"
	rowStdMissing    rowID = "P2"
	rowErrorsIs      rowID = "P3"
	rowArchMath      rowID = "P4"
	rowNaNBits       rowID = "P5"
	rowSSD           rowID = "P6"
	rowInitOrder     rowID = "P7"
	rowNoTypes       rowID = "X1"
	rowOther         rowID = "X2"
	rowInterpFail    rowID = "X3"
)

var subsetRows = []subsetRow{
	{rowPkgDecl, "package-level const, var, type (struct, named basic, slice, array, map, func types) and func declarations", "as Go", true, false},
	{rowMethod, "methods, value and pointer receivers; promoted through embedded fields", "as Go", true, false},
	{rowLocalDecl, "const and var declarations inside functions", "as Go", true, false},
	{rowLocalType, "type declarations inside functions", "as Go", true, false},
	{rowInit, "init functions", "as Go (rerun before every episode)", true, false},
	{rowGeneric, "type parameters: generic functions and types, instantiation", "refused: yaegi fails to infer or instantiate many of them (an internal error, or another result)", false, false},
	{rowAlias, "type aliases (type A = B)", "refused: no differential evidence", false, false},
	{rowIfaceDecl, "interface types declared by the policy, and method calls through interfaces", "as Go", true, false},
	{rowExprStmt, "expression statements (calls)", "as Go", true, false},
	{rowAssign, "assignments and short variable declarations, single and parallel", "rewritten where yaegi mishandles parallel forms", true, false},
	{rowOpAssign, "compound assignments (+=, -=, *=, /=, %=, &=, |=, ^=, &^=, <<= and >>= by a constant)", "as Go", true, false},
	{rowIncDec, "++ and --", "as Go", true, false},
	{rowIf, "if, else, with an init statement", "as Go", true, false},
	{rowFor, "for loops: three clauses, condition only, infinite", "loop variables captured by closures get Go 1.22's per-iteration copy", true, false},
	{rowRangeSeq, "range over slices and arrays", "range variables the body assigns get a copy (yaegi iterates with them)", true, false},
	{rowRangePtrArr, "range over a pointer to an array", "refused: yaegi fails inside reflect (found by the fresh probes)", false, false},
	{rowRangeMap, "range over maps", "as Go (an order Go leaves random: the determinism check replays episodes)", true, false},
	{rowRangeString, "range over strings", "rewritten (byte offsets as Go gives them)", true, false},
	{rowRangeInt, "range over integers", "rewritten into a three-clause loop", true, false},
	{rowRangeFunc, "range over functions (iterators)", "refused: yaegi has none", false, false},
	{rowSwitch, "switch with and without a tag, case lists, fallthrough", "tagless case lists rewritten; a tagged switch whose case lists hold other than constants rewritten into a tagless one (yaegi evaluates only a list's first call)", true, false},
	{rowSwitchLabel, "a labelled tagged switch with an init statement whose case lists hold other than constants", "refused: the rewrite of S12 cannot keep the label on the switch", false, false},
	{rowSwitchIface, "switch on a value of interface type", "refused: yaegi compares such values wrongly", false, false},
	{rowDefaultFirst, "a default clause before other clauses", "refused: yaegi takes it when it reaches it", false, false},
	{rowTypeSwitch, "type switches whose cases are builtin types (or nil) that no type of the policy shares an underlying type with", "as Go", true, false},
	{rowTypeSwitchBad, "type switch cases naming the policy's types, interface types, or a builtin type another type of the policy shares an underlying type with", "refused: yaegi matches a case by its underlying type (case int: takes a value of type Meters int) and misses interface cases", false, false},
	{rowBranch, "break, continue (labelled too), goto to a label at the top level of the function", "as Go", true, false},
	{rowGotoBlock, "a label inside a block", "refused: yaegi cannot jump to it", false, false},
	{rowReturn, "return, with several results, named results", "rewritten where yaegi mishandles several results", true, false},
	{rowDeferLit, "defer of a function literal without arguments, outside loops", "as Go", true, false},
	{rowDeferOther, "defer of anything else, or in a loop", "refused: yaegi evaluates the deferred call's function and arguments late", false, false},
	{rowBlock, "blocks, empty statements, labels of loops and switches", "as Go", true, false},
	{rowAssignForm, "assignments the rewrite cannot make exact: a value of interface type among several assigned to interface targets, a map element whose index is assigned earlier in the same assignment, := redeclaring a captured variable, several results returned to a result named _", "refused: yaegi fails on them or assigns in another order", false, false},
	{rowConcurrency, "go, select, channels", "refused on every backend", false, true},
	{rowLoopVarChange, "a three-clause loop variable captured by a closure and changed in the body", "refused: yaegi shares one variable across iterations", false, false},
	{rowBasicLit, "integer, float, rune and string literals; constants", "untyped constant arithmetic folded by the type checker", true, false},
	{rowCompositeLit, "composite literals of structs, arrays, slices and maps (keyed, positional, elided types)", "rewritten where yaegi mishandles keyed literals", true, false},
	{rowFuncLit, "function literals (closures)", "as Go", true, false},
	{rowField, "field selection, through pointers and embedded fields", "as Go", true, false},
	{rowMethodCall, "method calls", "as Go", true, false},
	{rowMethodValue, "method values and method expressions", "rewritten into function literals (a promoted method binds the embedded field that has it, as Go does)", true, false},
	{rowIndex, "indexing slices, arrays, strings, maps and pointers to arrays", "as Go", true, false},
	{rowSlice, "slice expressions a[i:j] of slices, arrays, pointers to arrays and strings", "as Go", true, false},
	{rowSlice3, "three-index slice expressions a[i:j:k]", "as Go", true, false},
	{rowCall, "calls of functions and closures, variadic calls", "as Go", true, false},
	{rowUnary, "unary -, +, !, ^, & (address of), * (indirection)", "as Go", true, false},
	{rowArith, "arithmetic and bitwise operators on integers and floats, string concatenation", "as Go (integers wrap; division by zero panics)", true, false},
	{rowShiftConst, "shifts by a constant count", "as Go", true, false},
	{rowShiftVar, "shifts by a variable count, and <<=, >>= by one of a variable, field or element indexed by a variable or constant", "rewritten: a negative count panics as in Go (yaegi gives 0)", true, false},
	{rowShiftAssign, "<<= and >>= by a variable count whose left side calls a function or computes an index", "refused: the rewrite would evaluate it twice", false, false},
	{rowNilIface, "a nil pointer converted to an interface", "checked at run time: the policy stops with this row's refusal (yaegi makes it a nil interface)", false, false},
	{rowCompare, "== != < <= > >= on numbers, strings, booleans and pointers", "as Go", true, false},
	{rowCompareComp, "== and != on structs and arrays, and their use as map keys, when no field or element has an interface type", "as Go", true, false},
	{rowCompareIface, "== and != on interface values, or on structs and arrays holding them (other than with nil)", "refused: yaegi ignores the dynamic type (an int32 1 equals an int64 1)", false, false},
	{rowCompareZero, "== and != on pointers to zero-size types", "refused: Go leaves the result to the implementation", false, false},
	{rowLogical, "&&, ||, !", "as Go", true, false},
	{rowAssertSafe, "type assertion x.(T) to a concrete type that no other type of the policy shares an underlying type with (a compiled struct, slice, array or map type such as ssd.Pos or sort.IntSlice counts as another)", "as Go", true, false},
	{rowAssertAmbig, "type assertion to a concrete type that another type of the policy (or a builtin type, or a compiled type of a composite kind) shares an underlying type with", "refused: yaegi takes any value of the same underlying type (err.(*NotFound) holds for an *Invalid, a.(P) for an ssd.Pos)", false, false},
	{rowAssertIface, "type assertion to an interface type", "refused: yaegi gets it wrong for the policy's own types", false, false},
	{rowOrder, "a variable read in the same composite literal as a call that assigns it", "refused: Go leaves the order unspecified; the compiler and yaegi choose differently", false, false},
	{rowConvInt, "conversions between integer types", "as Go", true, false},
	{rowConvIntFloat, "conversions of integers to floats", "float32 of a 64-bit integer rewritten (yaegi rounds twice)", true, false},
	{rowConvFloatInt, "conversions of floats to integers", "rewritten on every backend: NaN gives 0, out of range saturates (Go leaves it to the machine)", true, false},
	{rowConvFloat, "conversions between float types", "as Go", true, false},
	{rowConvString, "string(r) of an integer; string <-> []byte, []rune", "as Go", true, false},
	{rowConvNamed, "conversions between types of the same underlying type, and of nil", "as Go", true, false},
	{rowConvIface, "conversions to interface types (explicit or implicit)", "to an interface with methods rewritten: the value is copied first (yaegi kept a reference to the variable)", true, false},
	{rowConvOther, "other conversions (slice to array, pointer conversions, function types)", "refused: no differential evidence", false, false},
	{rowConvTypeParam, "a conversion between a type parameter and a float or integer type that may convert a float to an integer", "refused on every backend: the defined conversion cannot be applied", false, true},
	{rowBasicTypes, "bool, integer, float and string types", "as Go (int is 64 bits on every machine workers run on)", true, false},
	{rowComplex, "complex types, imaginary literals, complex, real, imag", "refused: no differential evidence", false, false},
	{rowComposite, "array, slice, struct, pointer, map and function types", "as Go", true, false},
	{rowIfaceType, "interface types (any, error, the policy's) as types of variables, fields, parameters and results", "as Go; values held by them are never compared (E17)", true, false},
	{rowEmbedIface, "a struct type embedding an interface type", "refused: calling a promoted method through it panics in yaegi (found by the fresh probes)", false, false},
	{rowMapKey, "map keys of basic, pointer, struct and array types without interface parts", "as Go", true, false},
	{rowMapKeyIface, "maps keyed by an interface type, or by a struct or array with an interface part", "refused: yaegi ignores the dynamic type of the key", false, false},
	{rowBuiltin, "len, cap, append, copy, make, delete, panic, min, max, clear", "min, max, clear rewritten", true, false},
	{rowBuiltinNew, "new", "as Go", true, false},
	{rowRecoverValue, "recover: its value used other than compared with nil", "refused: yaegi gives it another type and value", false, false},
	{rowClearNaN, "clear on a map whose keys may be NaN", "refused: the rewrite's delete loop cannot remove NaN keys", false, false},
	{rowBuiltinOther, "print, println, complex, real, imag", "refused: no differential evidence", false, false},
	{rowStd, "the allowed packages (math, math/bits, sort, strings, strconv, errors, container/heap): the names yaegi's symbol table has", "as Go (compiled code, called from the interpreter)", true, false},
	{rowStdMissing, "names of the allowed packages that yaegi v0.16.1 does not have (added after Go 1.22)", "refused: yaegi does not know them", false, false},
	{rowErrorsIs, "errors.Is, As, Unwrap, Join", "refused: they do not see the identity of the policy's error types under yaegi", false, false},
	{rowArchMath, "math.Exp, Exp2, Log, Log10, Log2, Hypot, Sinh, Cosh, Tanh, Asinh, Acosh, Erf, Erfc, Erfinv, Erfcinv, Gamma, Lgamma, J0, J1, Jn, Y0, Y1, Yn; math.Pow with an exponent that is not a constant integer or ±0.5", "refused on every backend: their last bits differ between amd64 and arm64", false, true},
	{rowNaNBits, "math.Float64bits, Float32bits, Signbit, Copysign", "rewritten on every backend: a NaN is the quiet positive NaN (its sign differs between amd64 and arm64)", true, false},
	{rowSSD, "the ssd API", "as Go (compiled code)", true, false},
	{rowInitOrder, "a package-level variable initialised by calling a function that changes another", "refused: yaegi initialises package-level variables in another order", false, false},
	{rowNoTypes, "any policy, when there is no type information (no Go toolchain and no other source of it)", "refused: the subset cannot be checked without types", false, false},
	{rowOther, "anything else", "refused", false, false},
	{rowInterpFail, "whatever the interpreter fails to load or run by an internal error of its own", "refused, naming the construct at the line yaegi reports", false, false},
}

// rowByID returns the row of an ID.
func rowByID(id rowID) *subsetRow {
	for i := range subsetRows {
		if subsetRows[i].ID == id {
			return &subsetRows[i]
		}
	}
	return &subsetRows[len(subsetRows)-1]
}
