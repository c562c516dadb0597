package field

import (
	"errors"
	"testing"
)

// TestNames: a nested configuration's errors, joined, come out under the
// command's names, in order, with other errors untouched.
func TestNames(t *testing.T) {
	other := errors.New("-db is empty")
	inner := errors.Join(Check(false, "MinGames", 0, "at least 1"), Check(true, "Age", 5, "at least 0"), Check(false, "Age", -2, "at least 0"))
	err := errors.Join(other, In("Prune", inner), Check(false, "Workers", 0, "in 1..256"))
	got := Named(err, map[string]string{"Prune.MinGames": "-prune-min", "Workers": "-workers"}).Error()
	want := "-db is empty\n-prune-min 0: want at least 1\nPrune.Age -2: want at least 0\n-workers 0: want in 1..256"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	var fe *Error
	if !errors.As(Named(inner, nil), &fe) || fe.Name != "MinGames" || fe.Value != 0 {
		t.Fatalf("errors.As: %+v", fe)
	}
	if !errors.Is(err, ErrInvalid) || errors.Is(other, ErrInvalid) {
		t.Fatal("errors.Is ErrInvalid")
	}
	if Named(nil, nil) != nil || In("x", nil) != nil {
		t.Fatal("nil is not nil")
	}
}
