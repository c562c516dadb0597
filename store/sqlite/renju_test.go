package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/storetest"
)

// TestRenjuRule: a renju database records its rule, reopens under it and
// takes renju shards; it is refused under another rule, and so are shards
// and databases between it and a freestyle one (ErrRuleMismatch), leaving
// both as they were. The same games give the same rows under either rule
// (canon's key is rule-independent): only the rule travels.
func TestRenjuRule(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	renju := store.Config{Rule: gomoku.Renju, KeyVersion: 1, BoardSize: 15}
	games := storetest.RandomGames(61, 80)
	rpath := filepath.Join(dir, "renju.db")
	r, err := Open(rpath, renju)
	if err != nil {
		t.Fatal(err)
	}
	writeGames(t, r, games, 40)
	f := mustOpen(t, filepath.Join(dir, "freestyle.db"))
	writeGames(t, f, games, 80)
	frows := exportString(t, f)
	if frows == "" || exportString(t, r) != frows {
		t.Fatal("the same games give other rows under renju")
	}
	rshard := storetest.MustShard(t, dir, renju, storetest.RandomGames(62, 30))
	if res, err := r.Merge(ctx, rshard); err != nil || res.Games != 30 {
		t.Fatalf("merge a renju shard: %+v, %v", res, err)
	}
	if st, err := r.Stats(ctx); err != nil || st.Rule != "renju" || st.Games != 110 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	rows := exportString(t, r)
	mustClose(t, r)

	fshard := storetest.MustShard(t, dir, storetest.Config, storetest.RandomGames(63, 10))
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"renju shard into freestyle", func() error { _, err := f.Merge(ctx, rshard); return err }},
		{"renju database into freestyle", func() error { _, err := f.Merge(ctx, rpath); return err }},
		{"open renju as freestyle", func() error { d, err := Open(rpath, storetest.Config); closeIf(d); return err }},
		{"open renju as standard", func() error {
			d, err := Open(rpath, store.Config{Rule: gomoku.Standard, KeyVersion: 1, BoardSize: 15})
			closeIf(d)
			return err
		}},
		{"open freestyle as renju", func() error {
			d, err := Open(filepath.Join(dir, "freestyle.db"), renju)
			closeIf(d)
			return err
		}},
	} {
		if err := tc.err(); !errors.Is(err, store.ErrRuleMismatch) {
			t.Errorf("%s: %v, want ErrRuleMismatch", tc.name, err)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	if exportString(t, f) != frows {
		t.Fatal("a refused merge changed the freestyle database")
	}

	r, err = Open(rpath, renju)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Merge(ctx, fshard); !errors.Is(err, store.ErrRuleMismatch) {
		t.Errorf("freestyle shard into renju: %v, want ErrRuleMismatch", err)
	}
	if exportString(t, r) != rows {
		t.Fatal("the renju database changed")
	}
	ro, err := OpenReadOnly(rpath)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.Config() != renju {
		t.Errorf("read-only config %+v", ro.Config())
	}
}

func closeIf(d *DB) {
	if d != nil {
		d.Close()
	}
}
