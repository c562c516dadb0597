package young

import (
	"errors"
	"fmt"
	"io/fs"

	"ocvist/store"
)

// Damaged returns err, met reading the young run name of the database at
// path, as a DamageError when it says the run is damaged (not for a
// cancelled context or a failing disk, say); nil stays nil.
func Damaged(path, name string, err error) error {
	var de *store.DamageError
	switch {
	case err == nil || errors.As(err, &de):
		return err
	case errors.Is(err, store.ErrCorrupt):
		err = fmt.Errorf("young run %s: %w", name, err)
	case errors.Is(err, store.ErrUnpublished):
		err = fmt.Errorf("young run %s: %w: cut short (no seal at its end)", name, store.ErrCorrupt)
	case errors.Is(err, store.ErrNotOcvist), errors.Is(err, store.ErrSchemaVersion), errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("young run %s: %w: %w", name, store.ErrCorrupt, err)
	default:
		return err
	}
	return &store.DamageError{Path: path, Run: name, Err: err}
}
