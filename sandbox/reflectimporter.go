package sandbox

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"path"
	"reflect"
	"sort"
	"strings"

	"github.com/traefik/yaegi/stdlib"
)

// reflectImporter gives the type checker the standard library without a
// Go toolchain: each package is built from yaegi's symbol table (the
// functions, variables, constants and types this binary links, as
// reflect sees them), which is also exactly what the interpreter can
// reach. Without a toolchain the yaegi backend is the only one, so its
// subset (and every typed rewrite) is checked against these packages.
// Constants are untyped (the symbol table keeps their exact values, not
// their types); nothing in the allowed packages declares typed ones
// that a policy could tell apart.
type reflectImporter struct {
	pkgs  map[string]*types.Package
	named map[reflect.Type]*types.Named
}

func newReflectImporter() *reflectImporter {
	return &reflectImporter{pkgs: map[string]*types.Package{}, named: map[reflect.Type]*types.Named{}}
}

// Import builds the package at p from the symbol table.
func (ri *reflectImporter) Import(p string) (*types.Package, error) {
	if pkg := ri.pkgs[p]; pkg != nil && pkg.Complete() {
		return pkg, nil
	}
	syms, ok := stdlib.Symbols[p+"/"+path.Base(p)]
	if !ok {
		return nil, fmt.Errorf("package %s is not in the interpreter's symbol table", p)
	}
	pkg := ri.pkg(p)
	names := make([]string, 0, len(syms))
	for n := range syms {
		names = append(names, n)
	}
	sort.Strings(names)
	scope := pkg.Scope()
	for _, n := range names {
		if strings.HasPrefix(n, "_") {
			continue // yaegi's wrappers of interfaces
		}
		v := syms[n]
		var obj types.Object
		switch {
		case v.Type() == reflect.TypeOf((*constant.Value)(nil)).Elem() || v.Type().Implements(reflect.TypeOf((*constant.Value)(nil)).Elem()) && v.Kind() != reflect.Ptr:
			cv := v.Interface().(constant.Value)
			obj = types.NewConst(token.NoPos, pkg, n, untypedOf(cv), cv)
		case v.Kind() == reflect.Func:
			obj = types.NewFunc(token.NoPos, pkg, n, ri.signature(v.Type(), nil))
		case v.Kind() == reflect.Ptr && v.IsNil():
			t := ri.typ(v.Type().Elem())
			if nt, ok := t.(*types.Named); ok && nt.Obj().Name() == n {
				obj = nt.Obj()
			} else {
				obj = types.NewTypeName(token.NoPos, pkg, n, t)
			}
		case v.Kind() == reflect.Ptr:
			obj = types.NewVar(token.NoPos, pkg, n, ri.typ(v.Type().Elem()))
		default:
			// A constant of a concrete type (yaegi keeps some as values).
			if c := constant.Make(v.Interface()); c.Kind() != constant.Unknown {
				obj = types.NewConst(token.NoPos, pkg, n, ri.typ(v.Type()), c)
			}
		}
		if obj != nil && scope.Lookup(n) == nil {
			scope.Insert(obj)
		}
	}
	pkg.MarkComplete()
	return pkg, nil
}

func (ri *reflectImporter) pkg(p string) *types.Package {
	if pkg := ri.pkgs[p]; pkg != nil {
		return pkg
	}
	pkg := types.NewPackage(p, path.Base(p))
	ri.pkgs[p] = pkg
	return pkg
}

func untypedOf(c constant.Value) types.Type {
	switch c.Kind() {
	case constant.Bool:
		return types.Typ[types.UntypedBool]
	case constant.String:
		return types.Typ[types.UntypedString]
	case constant.Int:
		return types.Typ[types.UntypedInt]
	case constant.Float:
		return types.Typ[types.UntypedFloat]
	}
	return types.Typ[types.UntypedComplex]
}

var basicKinds = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64,
	reflect.Uintptr: types.Uintptr, reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128, reflect.String: types.String,
	reflect.UnsafePointer: types.UnsafePointer,
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// typ converts a reflect type.
func (ri *reflectImporter) typ(t reflect.Type) types.Type {
	if t == errorType {
		return types.Universe.Lookup("error").Type()
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return ri.namedType(t)
	}
	if t.Name() != "" {
		// A predeclared type (byte and rune are their aliases' targets).
		if k, ok := basicKinds[t.Kind()]; ok {
			return types.Typ[k]
		}
	}
	return ri.structure(t)
}

// structure converts the type literal of t.
func (ri *reflectImporter) structure(t reflect.Type) types.Type {
	switch t.Kind() {
	case reflect.Ptr:
		return types.NewPointer(ri.typ(t.Elem()))
	case reflect.Slice:
		return types.NewSlice(ri.typ(t.Elem()))
	case reflect.Array:
		return types.NewArray(ri.typ(t.Elem()), int64(t.Len()))
	case reflect.Map:
		return types.NewMap(ri.typ(t.Key()), ri.typ(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, ri.typ(t.Elem()))
	case reflect.Func:
		return ri.signature(t, nil)
	case reflect.Struct:
		var fields []*types.Var
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			var pkg *types.Package
			if f.PkgPath != "" {
				pkg = ri.pkg(f.PkgPath)
			}
			fields = append(fields, types.NewField(token.NoPos, pkg, f.Name, ri.typ(f.Type), f.Anonymous))
		}
		return types.NewStruct(fields, nil)
	case reflect.Interface:
		var methods []*types.Func
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			var pkg *types.Package
			if m.PkgPath != "" {
				pkg = ri.pkg(m.PkgPath)
			}
			methods = append(methods, types.NewFunc(token.NoPos, pkg, m.Name, ri.signature(m.Type, nil)))
		}
		return types.NewInterfaceType(methods, nil).Complete()
	}
	if k, ok := basicKinds[t.Kind()]; ok {
		return types.Typ[k]
	}
	return types.Typ[types.Invalid]
}

// namedType converts a named type of a package, with its methods.
func (ri *reflectImporter) namedType(t reflect.Type) *types.Named {
	if n := ri.named[t]; n != nil {
		return n
	}
	pkg := ri.pkg(t.PkgPath())
	tn := types.NewTypeName(token.NoPos, pkg, t.Name(), nil)
	n := types.NewNamed(tn, nil, nil)
	ri.named[t] = n
	if k, ok := basicKinds[t.Kind()]; ok {
		n.SetUnderlying(types.Typ[k])
	} else {
		n.SetUnderlying(ri.structure(t).Underlying())
	}
	if t.Kind() == reflect.Interface {
		return n
	}
	// Methods: those of T have value receivers; those of *T only, pointer
	// receivers.
	value := map[string]bool{}
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		value[m.Name] = true
		recv := types.NewVar(token.NoPos, pkg, "", n)
		n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, ri.signature(m.Type, recv)))
	}
	pt := reflect.PointerTo(t)
	for i := 0; i < pt.NumMethod(); i++ {
		m := pt.Method(i)
		if value[m.Name] {
			continue
		}
		recv := types.NewVar(token.NoPos, pkg, "", types.NewPointer(n))
		n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, ri.signature(m.Type, recv)))
	}
	return n
}

// signature converts a func type; with recv, its first parameter is the
// receiver and is left out.
func (ri *reflectImporter) signature(t reflect.Type, recv *types.Var) *types.Signature {
	first := 0
	if recv != nil {
		first = 1
	}
	var params, results []*types.Var
	for i := first; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", ri.typ(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		results = append(results, types.NewParam(token.NoPos, nil, "", ri.typ(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}
