package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Shard file names: a shard is written as .shard-<id>.tmp.db and renamed to
// shard-<id>.db by Publish. Merge refuses the temporary name.
const (
	tempPrefix  = ".shard-"
	tempSuffix  = ".tmp.db"
	finalPrefix = "shard-"
	finalSuffix = ".db"
)

// Shard is a worker's own database, written under a temporary name and
// published (made visible under its final name) when complete. It is a DB:
// write batches with Write. A Shard is used by one goroutine.
type Shard struct {
	*DB
	dir, tmp string
}

// CreateShard creates a new, empty shard in dir with a fresh random id and
// the given free-form meta entries (reserved keys are refused with
// ErrReservedMeta). The file is .shard-<id>.tmp.db until Publish.
func CreateShard(dir string, cfg Config, meta map[string]string) (*Shard, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	for k := range meta {
		if reservedMeta[k] {
			return nil, fmt.Errorf("store: create shard in %q: meta %q: %w", dir, k, ErrReservedMeta)
		}
	}
	id := newID()
	tmp := filepath.Join(dir, tempPrefix+id+tempSuffix)
	// Reserve the name: never reuse or overwrite an existing file.
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store: create shard in %q: %w", dir, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("store: create shard %q: %w", tmp, err)
	}
	withID := map[string]string{metaID: id}
	for k, v := range meta {
		withID[k] = v
	}
	d, err := open(tmp, &cfg, modeCreate, kindShard, withID)
	if err != nil {
		return nil, errors.Join(err, removeTemp(tmp))
	}
	return &Shard{DB: d, dir: dir, tmp: d.path}, nil
}

// Publish completes the shard: it marks it published, checkpoints the WAL
// into the file, switches it to rollback-journal mode (the file is then the
// whole shard), closes it, syncs it and atomically renames it to
// shard-<id>.db in the same directory, whose path it returns. After Publish
// (successful or not) the shard is closed; on error the temporary file stays
// and is never merged.
func (s *Shard) Publish() (string, error) {
	final := filepath.Join(s.dir, finalPrefix+s.id+finalSuffix)
	if err := s.finish(); err != nil {
		return "", fmt.Errorf("store: publish shard %q: %w", s.tmp, err)
	}
	if err := syncFile(s.tmp); err != nil {
		return "", fmt.Errorf("store: publish shard %q: %w", s.tmp, err)
	}
	if err := os.Rename(s.tmp, final); err != nil {
		return "", fmt.Errorf("store: publish shard %q: %w", s.tmp, err)
	}
	if err := syncFile(s.dir); err != nil {
		return "", fmt.Errorf("store: publish shard %q: sync directory: %w", final, err)
	}
	return final, nil
}

// finish marks the shard published, folds the WAL into the file and closes it.
func (s *Shard) finish() (err error) {
	defer func() { err = errors.Join(err, s.DB.db.Close()) }()
	ctx := context.Background()
	tx, err := s.DB.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := putMeta(ctx, tx, map[string]string{metaPublished: "1"}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if err := checkpoint(ctx, s.DB.db); err != nil {
		return err
	}
	var mode string
	if err := s.DB.db.QueryRowContext(ctx, "PRAGMA journal_mode = DELETE").Scan(&mode); err != nil {
		return err
	}
	if mode != "delete" {
		return fmt.Errorf("journal mode is %q after switching to delete", mode)
	}
	return nil
}

// Discard closes the shard without publishing it and removes its files.
func (s *Shard) Discard() error {
	err := s.DB.db.Close()
	if err := errors.Join(err, removeTemp(s.tmp)); err != nil {
		return fmt.Errorf("store: discard shard %q: %w", s.tmp, err)
	}
	return nil
}

// IsTempShard reports whether path names an unpublished shard.
func IsTempShard(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, tempPrefix) && strings.Contains(base, tempSuffix)
}

// CleanTemp removes the unpublished shards (and their WAL and journal files)
// left in dir by crashed workers and returns the paths removed, sorted. It
// must not run while a worker may still be writing a shard in dir.
func CleanTemp(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(globEscape(dir), tempPrefix+"*"+tempSuffix+"*"))
	if err != nil {
		return nil, fmt.Errorf("store: clean temporary shards in %q: %w", dir, err)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("store: clean temporary shard %q: %w", p, err)
		}
	}
	return paths, nil
}

// ListShards returns the published shards (shard-*.db) in dir, sorted.
func ListShards(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(globEscape(dir), finalPrefix+"*"+finalSuffix))
	if err != nil {
		return nil, fmt.Errorf("store: list shards in %q: %w", dir, err)
	}
	slices.Sort(paths)
	return paths, nil
}

// removeTemp removes a temporary shard and its companion files.
func removeTemp(tmp string) error {
	var errs []error
	for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm", tmp + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// syncFile fsyncs a file or directory.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// globEscape escapes glob metacharacters in a directory name.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}
