package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// legacySchema is the last schema whose young runs were files of a folder
// beside the database (DB.young/), named in young_runs. Migration 5 moves
// them into young_data when such a database is opened for writing and
// then removes the folder; a read-only open (which never writes) reads
// them where they are.
const legacySchema = 4

// openLegacy opens the files of a legacy database's young runs; a file
// that cannot be opened is nil, with its error (see snapshot.run).
func openLegacy(dir string, runs []youngRun) ([]*os.File, []error) {
	files, errs := make([]*os.File, len(runs)), make([]error, len(runs))
	for i, r := range runs {
		files[i], errs[i] = os.Open(filepath.Join(dir, r.name))
	}
	return files, errs
}

// importYoungDir is the code of migration 5: it copies every young run
// that young_runs lists from the folder dir into young_data, byte for
// byte, and records its source and results (source, black_wins,
// white_wins, draws) as far as the file tells them. A file that is
// missing or damaged is imported as it is (nothing, or its bytes), so the
// migration loses nothing: Check reports it and Repair drops it. It runs
// in the migration's transaction.
func importYoungDir(ctx context.Context, tx *sql.Tx, dir string) error {
	runs, err := listYoung(ctx, tx)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := importYoungFile(ctx, tx, dir, r); err != nil {
			return fmt.Errorf("import young run %s: %w", r.name, err)
		}
	}
	return nil
}

func importYoungFile(ctx context.Context, tx *sql.Tx, dir string, r youngRun) error {
	f, err := os.Open(filepath.Join(dir, r.name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	w := newYoungWriter(ctx, tx, r.name)
	if _, err := io.Copy(w, f); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	source, t, ok := runFacts(f, w.size(), r)
	var split []any
	if ok {
		split = []any{t.black, t.white, t.draws}
	} else {
		split = []any{nil, nil, nil}
	}
	_, err = tx.ExecContext(ctx, "UPDATE young_runs SET source = ?, black_wins = ?, white_wins = ?, draws = ? WHERE name = ?",
		append([]any{source}, append(split, r.name)...)...)
	return err
}

// runFacts reads what a run file says of itself without reading it
// through: the id in its header (its source in the ledger; "" if the
// header is unreadable) and the results in its footer, parsed backwards
// from the seal, when the file ends with one and the footer agrees with
// r's counts (ok).
func runFacts(src io.ReaderAt, size int64, r youngRun) (source string, t totals, ok bool) {
	hr := &runReader{f: src, size: size, crcEnd: size, buf: make([]byte, 1<<12)}
	if n, _ := src.ReadAt(hr.buf[:len(runMagic)], 0); n == len(runMagic) && string(hr.buf[:n]) == runMagic && hr.header() == nil {
		source = hr.h.id
	}
	tail := make([]byte, min(size, 128))
	if _, err := src.ReadAt(tail, size-int64(len(tail))); err != nil || !strings.HasSuffix(string(tail), runTrailer) {
		return source, t, false
	}
	v, ok := footerBackwards(tail[:len(tail)-runSealSize])
	ok = ok && v[0] == r.games && v[4] == r.positions && v[5] == r.rows && v[1]+v[2]+v[3] == v[0]
	return source, totals{v[0], v[1], v[2], v[3]}, ok
}

// footerBackwards parses the footer record that ends b: the tag 0 and six
// uvarints, found from the end (a uvarint's last byte is below 0x80, the
// others are not).
func footerBackwards(b []byte) (v [6]int64, ok bool) {
	end := len(b)
	for i := len(v) - 1; i >= 0; i-- {
		if end == 0 || b[end-1] >= 0x80 {
			return v, false
		}
		start := end - 1
		for start > 0 && b[start-1] >= 0x80 {
			start--
		}
		x, n := binary.Uvarint(b[start:end])
		if n != end-start || x > 1<<62 {
			return v, false
		}
		v[i], end = int64(x), start
	}
	return v, end > 0 && b[end-1] == tagFooter
}

// removeLegacyDir removes the young folder of a database whose runs are
// in the file (schema 5 and later): what migration 5 imported and what a
// crash left of a merge before it (young-*.run and their temporary
// names), then the folder if that leaves it empty. It is best effort: a
// leftover is harmless (nothing reads it) and is tried again at the next
// open for writing.
func removeLegacyDir(dir string) {
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
