package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
)

var testCfg = store.Config{Rule: gomoku.Freestyle, KeyVersion: 1, BoardSize: 15}

// randomGame plays a random game on a 15x15 board: the first stone in the
// centre, then random empty cells within distance 2 of a stone, so early
// positions repeat across games. Keys are the sorted stone tokens (not
// canonical, which does not matter here).
func randomGame(rng *rand.Rand) store.Game {
	type pt struct{ x, y int }
	stones := map[pt]byte{}
	var tokens []string
	var g store.Game
	n := 3 + rng.IntN(28)
	g.Result = int8(rng.IntN(3) - 1)
	for ply := 0; ply < n; ply++ {
		p := pt{7, 7}
		if ply > 0 {
			for {
				var keys []pt
				for q := range stones {
					keys = append(keys, q)
				}
				slices.SortFunc(keys, func(a, b pt) int { return (a.x*15 + a.y) - (b.x*15 + b.y) })
				q := keys[rng.IntN(len(keys))]
				p = pt{q.x + rng.IntN(5) - 2, q.y + rng.IntN(5) - 2}
				if _, taken := stones[p]; !taken && p.x >= 0 && p.x < 15 && p.y >= 0 && p.y < 15 {
					break
				}
			}
		}
		side, w := byte('x'), g.Result
		if ply%2 == 1 {
			side, w = 'o', -g.Result
		}
		key := strings.Join(tokens, "")
		g.Records = append(g.Records, store.Record{Key: key, Move: canon.Move{X: int8(p.x - 7), Y: int8(p.y - 7)}, Weight: w})
		stones[p] = side
		tokens = append(tokens, fmt.Sprintf("%02d%02d%c", p.x, p.y, side))
		slices.Sort(tokens)
	}
	if g.Result != 0 {
		// The loser's last move: the last record with weight −1.
		for i := len(g.Records) - 1; i >= 0; i-- {
			if g.Records[i].Weight == -1 {
				g.Blacklist = []store.KeyMove{{Key: g.Records[i].Key, Move: g.Records[i].Move}}
				break
			}
		}
	}
	return g
}

func randomGames(seed uint64, n int) []store.Game {
	rng := rand.New(rand.NewPCG(seed, 7))
	games := make([]store.Game, n)
	for i := range games {
		games[i] = randomGame(rng)
	}
	return games
}

// reference is the slow twin of Batch + Write + Merge: plain counting.
type reference struct {
	moves     map[store.KeyMove]*store.MoveStat
	positions map[string]int64
	games     int64
	black     int64
	white     int64
	draws     int64
}

func newReference() *reference {
	return &reference{moves: map[store.KeyMove]*store.MoveStat{}, positions: map[string]int64{}}
}

func (r *reference) add(games []store.Game) {
	for _, g := range games {
		for _, rec := range g.Records {
			m := r.row(store.KeyMove{Key: rec.Key, Move: rec.Move})
			m.WSum += int64(rec.Weight)
			m.Games++
			r.positions[rec.Key]++
		}
		for _, km := range g.Blacklist {
			r.row(km).Blacklisted = true
		}
		r.games++
		switch g.Result {
		case 1:
			r.black++
		case -1:
			r.white++
		default:
			r.draws++
		}
	}
}

func (r *reference) row(km store.KeyMove) *store.MoveStat {
	m := r.moves[km]
	if m == nil {
		m = &store.MoveStat{Key: km.Key, Move: km.Move}
		r.moves[km] = m
	}
	return m
}

// check compares d with r row by row, both ways, and the totals.
func (r *reference) check(t *testing.T, d *DB) {
	t.Helper()
	s := r.checkRows(t, d)
	if s.BlackWins != r.black || s.WhiteWins != r.white || s.Draws != r.draws {
		t.Fatalf("stats %+v, want results %d/%d/%d", s, r.black, r.white, r.draws)
	}
}

// checkRows is check without the totals' results: rows both ways, games,
// positions and moves. It returns d's stats.
func (r *reference) checkRows(t *testing.T, d *DB) store.Stats {
	t.Helper()
	ctx := context.Background()
	positions := map[string]int64{}
	for km, m := range r.moves {
		positions[km.Key] += m.Games
	}
	seen := 0
	err := d.ScanMoves(ctx, 0, func(m store.MoveStat) error {
		seen++
		want := r.moves[store.KeyMove{Key: m.Key, Move: m.Move}]
		if want == nil {
			return fmt.Errorf("unexpected row %+v", m)
		}
		w := *want
		w.PositionGames = positions[m.Key]
		if m != w {
			return fmt.Errorf("row %q %v: got %+v, want %+v", m.Key, m.Move, m, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(r.moves) {
		t.Fatalf("%d move rows, want %d", seen, len(r.moves))
	}
	s, err := d.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Games != r.games || s.Positions != int64(len(positions)) || s.Moves != int64(len(r.moves)) {
		t.Fatalf("stats %+v, want games %d, positions %d, moves %d", s, r.games, len(positions), len(r.moves))
	}
	return s
}

func mustBatch(t testing.TB, games []store.Game) *shard.Batch {
	t.Helper()
	b := shard.NewBatch()
	for _, g := range games {
		if err := b.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func mustOpen(t testing.TB, path string) *DB {
	t.Helper()
	d, err := Open(path, testCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func mustClose(t testing.TB, d interface{ Close() error }) {
	t.Helper()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// mustShard writes the games into a new sealed shard in dir.
func mustShard(t testing.TB, dir string, cfg store.Config, games []store.Game) string {
	t.Helper()
	p, err := mustBatch(t, games).WriteShard(context.Background(), dir, cfg, map[string]string{"seed": "1"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeGames adds games to d through a shard, in chunks of at most chunk
// games, each merged in turn.
func writeGames(t testing.TB, d *DB, games []store.Game, chunk int) {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < len(games); i += chunk {
		p := mustShard(t, dir, d.Config(), games[i:min(i+chunk, len(games))])
		if res, err := d.Merge(context.Background(), p); err != nil || res.AlreadyMerged {
			t.Fatalf("merge %s: %+v, %v", p, res, err)
		}
	}
}

func exportString(t testing.TB, d *DB) string {
	t.Helper()
	var b strings.Builder
	if err := d.Export(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fileHash hashes a file and its WAL, if any.
func fileHash(t testing.TB, path string) string {
	t.Helper()
	h := sha256.New()
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rawExec runs SQL on a file directly (to build foreign or altered files).
func rawExec(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// mustExec runs one statement on db.
func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

// withRaw runs fn on a plain connection to the SQLite file at path (to
// damage or alter a closed database).
func withRaw(t *testing.T, path string, fn func(*sql.DB)) {
	t.Helper()
	db, err := sql.Open(driverName, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	fn(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func tempPath(t testing.TB, name string) string {
	return filepath.Join(t.TempDir(), name)
}
