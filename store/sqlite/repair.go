package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
	"ocvist/store/sqlite/internal/young"
)

// DroppedRun is a young run Repair took out of the database.
type DroppedRun struct {
	Name      string
	Source    string // its source's id in the ledger ("" if unknown)
	Games     int64
	Positions int64 // position records of the run
	Rows      int64 // (position, move) rows of the run
	// Results: black wins, white wins and draws taken off the totals;
	// Estimated when the run's own were unknown (cut short before this
	// version recorded them): then they are shared out in proportion to
	// the totals.
	Black, White, Draws int64
	Estimated           bool
}

// RepairResult reports what Repair found and did.
type RepairResult struct {
	Found   []Problem    // what the check before the repair found
	Dropped []DroppedRun // the young runs taken out
	// Sums over Dropped.
	Games, Positions, Rows int64
	Ledger                 int64 // ledger entries removed (the dropped runs' sources and the shards they held)
	Orphans                int   // names in young_data of no young run, whose bytes were deleted
	// Corrected: young runs whose young_runs row disagreed with the run,
	// whole and sealed, and now says what the run holds.
	Corrected []string
	Left      []Problem // what Repair could not mend
}

// Repair makes a damaged database usable again, in one transaction: it
// checks it as Check does and takes out every young run that cannot be
// read, as if it had never been merged — its bytes and row are deleted,
// its games and results come off the totals, the runs merged after it are
// born that many games earlier, and its source leaves the ledger with the
// shards listed inside it (so that the source, if it is still at hand, can
// be merged again); it corrects a young_runs row that disagrees with its
// run when the run is whole (its seal vouches for it), and deletes young
// bytes that belong to no run. Everything else stored stays as it is. It then checks again (SQLite's check aside) and lists in Left what
// it could not mend: totals or ledger entries that disagree otherwise, or
// a damaged SQLite file, which makes it change nothing (restore a copy).
// With nothing repairable it changes nothing.
func (d *DB) Repair(ctx context.Context) (RepairResult, error) {
	if err := d.writable("repair"); err != nil {
		return RepairResult{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	res, err := d.repair(ctx)
	d.dropIndex()
	if err != nil {
		return RepairResult{}, fmt.Errorf("store: repair %q: %w", d.path, err)
	}
	return res, nil
}

func (d *DB) repair(ctx context.Context) (RepairResult, error) {
	var res RepairResult
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return res, sqlerr.Classify(err)
	}
	defer tx.Rollback()
	s := &snapshot{ctx: ctx, tx: tx, path: d.path}
	if s.set, err = young.Load(ctx, tx, d.path); err != nil {
		return res, err
	}
	found, err := d.check(ctx, s, "PRAGMA integrity_check")
	if err != nil {
		return res, err
	}
	res.Found = found.Problems
	for _, p := range found.Problems {
		if strings.HasPrefix(p.Text, sqliteProblem) {
			res.Left = found.Problems
			return res, nil
		}
	}
	if err := d.mend(ctx, tx, found.Problems, &res); err != nil {
		return res, err
	}
	if len(res.Dropped) == 0 && res.Orphans == 0 && len(res.Corrected) == 0 {
		res.Left = found.Problems
		return res, nil
	}
	if s.set, err = young.Load(ctx, tx, d.path); err != nil {
		return res, err
	}
	again, err := d.check(ctx, s, "")
	if err != nil {
		return res, err
	}
	res.Left = again.Problems
	if err := touch(ctx, tx); err != nil {
		return res, err
	}
	return res, tx.Commit()
}

// mend drops the problems' young runs and orphan bytes and corrects the
// rows of whole runs.
func (d *DB) mend(ctx context.Context, tx *sql.Tx, problems []Problem, res *RepairResult) error {
	extras, err := young.Extras(ctx, tx)
	if err != nil {
		return err
	}
	runs, err := young.List(ctx, tx)
	if err != nil {
		return err
	}
	drop := map[string]bool{}
	for _, p := range problems {
		switch p.mend {
		case mendDrop:
			drop[p.Run] = true
		case mendOrphan:
			if err := young.DeleteData(ctx, tx, p.Run); err != nil {
				return err
			}
			res.Orphans++
		case mendRow:
			if err := young.Correct(ctx, tx, p.Run, p.foot); err != nil {
				return err
			}
			res.Corrected = append(res.Corrected, p.Run)
		}
	}
	// Latest first: a run's born is shifted by the runs dropped after it
	// only, which are gone by then.
	slices.SortFunc(runs, func(a, b young.Run) int { return cmp.Compare(b.Born, a.Born) })
	for _, r := range runs {
		if drop[r.Name] {
			if err := d.unmerge(ctx, tx, r, extras[r.Name], res); err != nil {
				return fmt.Errorf("drop young run %s: %w", r.Name, err)
			}
		}
	}
	return nil
}

// unmerge takes the young run r out as if it had never been merged.
func (d *DB) unmerge(ctx context.Context, tx *sql.Tx, r young.Run, e young.Extra, res *RepairResult) error {
	dr := DroppedRun{Name: r.Name, Source: e.Source, Games: r.Games, Positions: r.Positions, Rows: r.Rows}
	t, err := readTotals(ctx, tx)
	if err != nil {
		return err
	}
	if e.Black.Valid {
		dr.Black, dr.White, dr.Draws = e.Black.Int64, e.White.Int64, e.Draws.Int64
	} else {
		dr.Black, dr.White, dr.Draws = shareOut(r.Games, t)
		dr.Estimated = true
	}
	if err := young.Delete(ctx, tx, r.Name); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, totalsAdd, -dr.Games, -dr.Black, -dr.White, -dr.Draws); err != nil {
		return err
	}
	if err := young.Unborn(ctx, tx, r.Born, r.Games); err != nil {
		return err
	}
	if dr.Source != "" {
		n, err := execCount(ctx, tx, "DELETE FROM merged_shards WHERE (shard_id = ? AND via = '') OR via = ?", dr.Source, dr.Source)
		if err != nil {
			return err
		}
		res.Ledger += n
	}
	res.Dropped = append(res.Dropped, dr)
	res.Games += dr.Games
	res.Positions += dr.Positions
	res.Rows += dr.Rows
	return nil
}

// shareOut splits g of the totals t's games into black wins, white wins
// and draws in proportion to t's (largest remainders, ties to black, then
// white): each share is at most t's count, and they add up to g. Totals
// with fewer than g games (a database Check finds wrong anyway) give g
// draws.
func shareOut(g int64, t shard.Counts) (black, white, draws int64) {
	if t.Games <= 0 || g > t.Games {
		return 0, 0, g
	}
	counts := [3]int64{t.Black, t.White, t.Draws}
	var share [3]int64
	var rem [3]int64
	left := g
	for i, c := range counts {
		share[i] = g * c / t.Games
		rem[i] = g * c % t.Games
		left -= share[i]
	}
	for ; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		share[best]++
		rem[best] = -1
	}
	return share[0], share[1], share[2]
}
