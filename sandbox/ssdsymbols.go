package sandbox

import (
	"go/constant"
	"reflect"

	"policyevolve/envs/ssd"
)

// ssdSymbols is the ssd API as the yaegi interpreter sees it (the table
// `yaegi extract` would generate). TestSSDSymbolsComplete keeps it equal to
// the package's exported names.
var ssdSymbols = map[string]reflect.Value{
	// Types.
	"Agent":      reflect.ValueOf((*ssd.Agent)(nil)),
	"BeamTarget": reflect.ValueOf((*ssd.BeamTarget)(nil)),
	"Game":       reflect.ValueOf((*ssd.Game)(nil)),
	"Layout":     reflect.ValueOf((*ssd.Layout)(nil)),
	"Opponent":   reflect.ValueOf((*ssd.Opponent)(nil)),
	"Params":     reflect.ValueOf((*ssd.Params)(nil)),
	"Policy":     reflect.ValueOf((*ssd.Policy)(nil)),
	"Pos":        reflect.ValueOf((*ssd.Pos)(nil)),
	"State":      reflect.ValueOf((*ssd.State)(nil)),
	"View":       reflect.ValueOf((*ssd.View)(nil)),

	// Functions.
	"ActionName":        reflect.ValueOf(ssd.ActionName),
	"DefaultParams":     reflect.ValueOf(ssd.DefaultParams),
	"DirectionToAction": reflect.ValueOf(ssd.DirectionToAction),
	"HashState":         reflect.ValueOf(ssd.HashState),
	"Heading":           reflect.ValueOf(ssd.Heading),
	"NewView":           reflect.ValueOf(ssd.NewView),
	"ParseGame":         reflect.ValueOf(ssd.ParseGame),
	"RotateToward":      reflect.ValueOf(ssd.RotateToward),
	"Rotation":          reflect.ValueOf(ssd.Rotation),
	"RotationDistance":  reflect.ValueOf(ssd.RotationDistance),

	// Typed constants.
	"Cleanup":   reflect.ValueOf(ssd.Cleanup),
	"Gathering": reflect.ValueOf(ssd.Gathering),

	// Untyped constants.
	"Backward":    untypedInt(ssd.Backward),
	"Beam":        untypedInt(ssd.Beam),
	"Clean":       untypedInt(ssd.Clean),
	"East":        untypedInt(ssd.East),
	"Forward":     untypedInt(ssd.Forward),
	"North":       untypedInt(ssd.North),
	"RotateLeft":  untypedInt(ssd.RotateLeft),
	"RotateRight": untypedInt(ssd.RotateRight),
	"South":       untypedInt(ssd.South),
	"Stand":       untypedInt(ssd.Stand),
	"StepLeft":    untypedInt(ssd.StepLeft),
	"StepRight":   untypedInt(ssd.StepRight),
	"Unreachable": untypedInt(ssd.Unreachable),
	"West":        untypedInt(ssd.West),
}

func untypedInt(v int64) reflect.Value {
	return reflect.ValueOf(constant.MakeInt64(v))
}
