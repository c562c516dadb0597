// Package field names a configuration's fields in its errors, so that each
// package validates its own configuration (Check, In) and a command says
// which of its flags was wrong through one table of names (Named).
//
// It never prints, exits or keeps state.
package field

import (
	"errors"
	"fmt"
)

// ErrInvalid is what every field Error is (errors.Is): a configuration
// that cannot be used.
var ErrInvalid = errors.New("invalid configuration")

// Error is a configuration field whose value is out of its range.
type Error struct {
	Name  string // the field's name, dotted inside another configuration: "Prune.MinGames"
	Value any
	Want  string // what the value should be: "at least 1", "in 1..256"
}

func (e *Error) Error() string { return fmt.Sprintf("%s %v: want %s", e.Name, e.Value, e.Want) }

// Unwrap makes every field error an ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// Check is nil when ok, else the error of field name with value.
func Check(ok bool, name string, value any, want string) error {
	if ok {
		return nil
	}
	return &Error{Name: name, Value: value, Want: want}
}

// In puts the field errors of err (one, or several joined) inside the
// configuration field prefix: their names become prefix.Name. Other
// errors stay as they are.
func In(prefix string, err error) error {
	return rename(err, func(name string) string { return prefix + "." + name })
}

// Named gives the field errors of err the names in names (a command's
// flags: "Prune.MinGames" → "-prune-min"); a name not in the table stays.
func Named(err error, names map[string]string) error {
	return rename(err, func(name string) string {
		if n, ok := names[name]; ok {
			return n
		}
		return name
	})
}

func rename(err error, to func(string) string) error {
	switch j := err.(type) {
	case nil:
		return nil
	case interface{ Unwrap() []error }:
		errs := j.Unwrap()
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = rename(e, to)
		}
		return errors.Join(out...)
	default:
		if fe, ok := err.(*Error); ok {
			return &Error{Name: to(fe.Name), Value: fe.Value, Want: fe.Want}
		}
		return err
	}
}
