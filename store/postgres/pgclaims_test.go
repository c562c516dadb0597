package postgres

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"ocvist/internal/pgtest"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/storetest"
)

// TestPGTeacherShards: a teacher shard merges into PostgreSQL exactly
// once, its games read back with their plies; merged at the same time by
// several coordinators, it is stored once; a shard with a stored game
// keeps the stored one (a duplicate).
func TestPGTeacherShards(t *testing.T) {
	u := pgtest.SchemaURL(t)
	p := mustPG(t, u)
	ctx := context.Background()
	games := storetest.TeacherGames(2, 6)
	path, err := shard.WriteTeacherShard(ctx, t.TempDir(), storetest.Config, games, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]store.MergeResult, 4)
	errs := make([]error, 4)
	for i := range results {
		q := mustPG(t, u)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = q.Merge(ctx, path)
		}()
	}
	wg.Wait()
	added := 0
	for i, res := range results {
		switch {
		case errs[i] != nil:
			t.Fatalf("merge %d: %v", i, errs[i])
		case !res.AlreadyMerged && res.TeacherGames == 12:
			added++
		case !res.AlreadyMerged:
			t.Fatalf("merge %d: %+v", i, res)
		}
	}
	if added != 1 {
		t.Fatalf("%d merges added the shard's games, want 1: %+v", added, results)
	}
	if got := storetest.ReadTeacher(t, p, 1, 2); !reflect.DeepEqual(got, games) {
		t.Fatalf("read back:\n%+v\nwant\n%+v", got, games)
	}
	if res := storetest.MergeTeacher(t, p, storetest.TeacherGames(2, 7)[12:]); res.TeacherGames != 1 || res.Duplicates != 1 {
		t.Errorf("games 5 and 6 of generation 2: %+v, want 1 added, 1 duplicate", res)
	}
	st := statsOf(t, p)
	if st.TeacherGames != 13 || st.TeacherShards != 2 || st.TeacherShardGames != 14 || st.Games != 0 {
		t.Errorf("stats %+v", st)
	}
	if n, err := p.TeacherStored(ctx, 2); err != nil || n != 7 {
		t.Errorf("generation 2 stores %d (%v), want 7", n, err)
	}
}

// TestPGClaims: testClaims on PostgreSQL, members of separate
// coordinators (each its own connection pool, as on separate machines);
// a member is gone when its process dies: its pool is closed without
// leaving, and the server releases its lock.
func TestPGClaims(t *testing.T) {
	u := pgtest.SchemaURL(t)
	d := mustPG(t, u)
	pools := map[store.LoopMember]*DB{}
	join := func() store.LoopMember {
		q, err := Open(context.Background(), u, storetest.Config)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		m, err := q.JoinLoop(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pools[m] = q
		return m
	}
	storetest.CheckClaims(t, d, join, func(m store.LoopMember) {
		pm := m.(*pgMember)
		pm.conn.Conn().Close(context.Background()) // as if the process died
		pools[m].Close()
		// The server releases the locks when it sees the connection end.
		waitLocksFreed(t, d, pm.id)
	})
}

// waitLocksFreed waits until no session holds the member's lock (a minute
// at most: the server notices a closed connection at once, on a loaded
// machine within seconds).
func waitLocksFreed(t *testing.T, p *DB, member int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var n int
		err := p.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
			AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 2`, int64(pgMemberLock), member).Scan(&n)
		switch {
		case err != nil:
			t.Fatal(err)
		case n == 0:
			return
		case time.Now().After(deadline):
			t.Fatalf("member %d's lock still held a minute after its connection closed", member)
		}
	}
}

// TestPGRecordRun: four connection pools (four jobs on separate machines)
// number their runs at once, each number taken once; the keys are set in
// one order, so the transactions never deadlock.
func TestPGRecordRun(t *testing.T) {
	u := pgtest.SchemaURL(t)
	handles := []store.Store{mustPG(t, u)}
	for range 3 {
		q, err := Open(context.Background(), u, storetest.Config)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		handles = append(handles, q)
	}
	storetest.CheckRecordRun(t, handles, 5)
	storetest.CheckSetMetaAtOnce(t, handles, 20)
}
