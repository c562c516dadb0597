package young

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"ocvist/store/shard"
)

// LegacySchema is the last schema whose young runs were files of a folder
// beside the database (DB.young/), named in young_runs. Migration 5 moves
// them into young_data when such a database is opened for writing and
// then removes the folder; a read-only open (which never writes) reads
// them where they are.
const LegacySchema = 4

// openLegacy opens the files of a legacy database's young runs; a file
// that cannot be opened is nil, with its error (see Set.Open).
func openLegacy(dir string, runs []Run) ([]*os.File, []error) {
	files, errs := make([]*os.File, len(runs)), make([]error, len(runs))
	for i, r := range runs {
		files[i], errs[i] = os.Open(filepath.Join(dir, r.Name))
	}
	return files, errs
}

// ImportDir is the code of migration 5: it copies every young run
// that young_runs lists from the folder dir into young_data, byte for
// byte, and records its source and results (source, black_wins,
// white_wins, draws) as far as the file tells them. A file that is
// missing or damaged is imported as it is (nothing, or its bytes), so the
// migration loses nothing: Check reports it and Repair drops it. It runs
// in the migration's transaction.
func ImportDir(ctx context.Context, tx *sql.Tx, dir string) error {
	runs, err := List(ctx, tx)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := importFile(ctx, tx, dir, r); err != nil {
			return fmt.Errorf("import young run %s: %w", r.Name, err)
		}
	}
	return nil
}

func importFile(ctx context.Context, tx *sql.Tx, dir string, r Run) error {
	f, err := os.Open(filepath.Join(dir, r.Name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	w := NewWriter(ctx, tx, r.Name)
	if _, err := io.Copy(w, f); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	source, t, ok := youngFacts(f, w.Size(), r)
	var split []any
	if ok {
		split = []any{t.Black, t.White, t.Draws}
	} else {
		split = []any{nil, nil, nil}
	}
	_, err = tx.ExecContext(ctx, "UPDATE young_runs SET source = ?, black_wins = ?, white_wins = ?, draws = ? WHERE name = ?",
		append([]any{source}, append(split, r.Name)...)...)
	return err
}

// youngFacts reads what the run file of the young run r says of itself
// without reading it through (see shard.Facts); ok also needs its footer to
// agree with r's counts.
func youngFacts(src io.ReaderAt, size int64, r Run) (source string, t shard.Counts, ok bool) {
	source, f, ok := shard.Facts(src, size)
	ok = ok && f.Games == r.Games && f.Positions == r.Positions && f.Rows == r.Rows
	return source, f.Counts, ok
}

// RemoveDir removes the young folder of a database whose runs are
// in the file (schema 5 and later): what migration 5 imported and what a
// crash left of a merge before it (young-*.run and their temporary
// names), then the folder if that leaves it empty. It is best effort: a
// leftover is harmless (nothing reads it) and is tried again at the next
// open for writing.
func RemoveDir(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if (strings.HasPrefix(n, "young-") || strings.HasPrefix(n, ".young-")) && !e.IsDir() {
			os.Remove(filepath.Join(dir, n))
		}
	}
	os.Remove(dir)
}
