package coordinator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"ocvist/store"
	"ocvist/store/shard"
)

// A database's shard root (ShardDir) holds one folder per job that feeds
// the database from this directory: job-PID-RAND/, with a lock file that
// the job holds (flock) while it lives. Its workers publish there, and
// only the job itself, or anyone after it has died, merges, cleans or
// removes what is there: two jobs started from one folder against one
// PostgreSQL database never touch each other's shards. A job stopped with
// shards still waiting leaves its folder; the next job or maintenance
// command adopts it.

const (
	jobPrefix = "job-"
	lockName  = ".lock"
)

// jobDir is a job's own shard folder, locked while the job lives.
type jobDir struct {
	path string
	lock *os.File
}

// claimJobDir creates and locks a new job folder under root. The folder is
// made and locked under a temporary name and then renamed, so that no
// other job ever sees it unlocked.
func claimJobDir(root string) (*jobDir, error) {
	var rnd [4]byte
	rand.Read(rnd[:])
	name := jobPrefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:])
	tmp := filepath.Join(root, ".new-"+name)
	// A job that ends removes the root if it is empty: make it again if
	// that happens between the two calls.
	var err error
	for range 3 {
		if err = os.MkdirAll(root, 0o755); err == nil {
			if err = os.Mkdir(tmp, 0o755); !errors.Is(err, os.ErrNotExist) {
				break
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("create shard directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(tmp, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err == nil {
		lock.WriteString(strconv.Itoa(os.Getpid()) + "\n")
		err = os.Rename(tmp, filepath.Join(root, name))
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("create shard directory: %w", err)
	}
	return &jobDir{path: filepath.Join(root, name), lock: lock}, nil
}

// release removes the folder if nothing waits in it, and the shard root
// if that leaves it empty (a database is a file, not a file and folders),
// and unlocks it.
func (d *jobDir) release() {
	if waiting, err := shard.ListShards(d.path); err == nil && len(waiting) == 0 {
		shard.CleanTemp(d.path)
		os.Remove(filepath.Join(d.path, lockName))
		os.Remove(d.path)
		os.Remove(filepath.Dir(d.path)) // only if empty
	}
	d.lock.Close()
}

// Adopted is what AdoptShards found.
type Adopted struct {
	Jobs      int   // folders of jobs that had died
	Discarded int   // unfinished shards of those jobs, removed
	Shards    int   // sealed shards merged
	Games     int64 // their games
	Teacher   int64 // their teacher games (the learning loop's)
}

// AdoptShards merges the shards that dead jobs left under root (folders
// whose lock no process holds, and shards of older versions directly in
// root), deletes each once merged and removes the folders; it discards
// their unfinished shards. Folders of running jobs are left alone.
func AdoptShards(ctx context.Context, db store.Store, root string) (Adopted, error) {
	var a Adopted
	dirs, err := filepath.Glob(filepath.Join(root, jobPrefix+"*"))
	if err != nil {
		return a, fmt.Errorf("list shard directories: %w", err)
	}
	for _, dir := range append([]string{root}, dirs...) {
		unlock, ok := lockDead(dir, dir == root)
		if !ok {
			continue
		}
		err := a.adopt(ctx, db, dir, dir != root)
		unlock()
		if err != nil {
			return a, err
		}
	}
	return a, nil
}

// lockDead locks the folder of a dead job (ok false: a live job's, or
// gone). The root's lock file is made when missing and held only while
// its shards (of older versions, which had no job folders) are adopted.
func lockDead(dir string, root bool) (unlock func(), ok bool) {
	flags := os.O_RDWR
	if root {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), flags, 0o644)
	if errors.Is(err, os.ErrNotExist) && !root {
		_, serr := os.Stat(dir)
		return func() {}, serr == nil // a folder left without its lock file
	}
	if err != nil || syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if f != nil {
			f.Close()
		}
		return nil, false
	}
	if root { // the lock file goes with its use: a stopped job leaves no trace
		return func() { os.Remove(f.Name()); f.Close() }, true
	}
	return func() { f.Close() }, true
}

// adopt merges and removes what one dead job's folder holds.
func (a *Adopted) adopt(ctx context.Context, db store.Store, dir string, remove bool) error {
	removed, err := shard.CleanTemp(dir)
	if err != nil {
		return err
	}
	n, games, teacher, err := MergeWaiting(ctx, db, dir)
	a.Discarded += len(removed)
	a.Shards += n
	a.Games += games
	a.Teacher += teacher
	if err != nil || !remove {
		return err
	}
	a.Jobs++
	os.Remove(filepath.Join(dir, lockName))
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove shard directory of a finished job: %w", err)
	}
	return nil
}
