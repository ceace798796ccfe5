package evolve

import (
	"encoding/json"
	"fmt"
)

// An Option sets an optional feature of a job: left to its default (the
// zero Option), turned off (Off), or set to a value (On). The job applies
// the default in JobConfig.WithDefaults.
//
// In JSON an Option is a number, as stored run configurations have always
// held it: 0 for the default, -1 for off, the value otherwise. Any
// negative number reads as off, so that configurations stored before
// Option existed keep their meaning.
type Option[T int | float64] struct {
	set bool // On or Off; the default otherwise
	v   T    // the value when on; 0 when off
}

// On sets the feature to v; a v of 0 or below turns it off (no local
// rounds, no crossover).
func On[T int | float64](v T) Option[T] {
	if v <= 0 {
		return Off[T]()
	}
	return Option[T]{set: true, v: v}
}

// Off turns the feature off.
func Off[T int | float64]() Option[T] { return Option[T]{set: true} }

// IsDefault reports whether the option is left to its default.
func (o Option[T]) IsDefault() bool { return !o.set }

// IsOff reports whether the feature is turned off.
func (o Option[T]) IsOff() bool { return o.set && o.v == 0 }

// Value is the option's value: 0 when the feature is off or left to its
// default (apply the default first).
func (o Option[T]) Value() T { return o.v }

// OrDefault returns o, or On(def) when o is left to its default.
func (o Option[T]) OrDefault(def T) Option[T] {
	if o.set {
		return o
	}
	return On(def)
}

// String is the value, "off" or "default".
func (o Option[T]) String() string {
	switch {
	case !o.set:
		return "default"
	case o.v == 0:
		return "off"
	}
	return fmt.Sprint(o.v)
}

// MarshalJSON writes 0 for the default, -1 for off, else the value.
func (o Option[T]) MarshalJSON() ([]byte, error) {
	switch {
	case !o.set:
		return []byte("0"), nil
	case o.v == 0:
		return []byte("-1"), nil
	}
	return json.Marshal(o.v)
}

// UnmarshalJSON reads what MarshalJSON writes: 0 is the default, a
// negative number off, anything else the value.
func (o *Option[T]) UnmarshalJSON(b []byte) error {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v == 0 {
		*o = Option[T]{}
		return nil
	}
	*o = On(v)
	return nil
}
