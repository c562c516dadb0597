package sqlite

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"ocvist/store"
)

// lockPath is the writer lock file of the database at path.
func lockPath(path string) string { return path + ".lock" }

// lockWriter takes the database's writer lock: an exclusive flock on
// path.lock, which the kernel releases when the process dies, however it
// dies. A held lock gives ErrInUse at once (never waits), naming the
// holder's pid as it wrote it into the file.
func lockWriter(path string) (*os.File, error) {
	f, err := os.OpenFile(lockPath(path), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := lockHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w%s: one writer per database (a train run, merge, prune or conclude is using it)", store.ErrInUse, holder)
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// lockReader takes a shared lock on the database, if it has a lock file,
// so that no writer starts while a merge reads it; a writer holding it
// gives ErrInUse. Without a lock file (never written since, or a read-only
// directory) it returns nil: no writer can hold it.
func lockReader(path string) (*os.File, error) {
	f, err := os.Open(lockPath(path))
	if err != nil {
		return nil, nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		holder := lockHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w%s: it is still being written; merge it when that job has finished", store.ErrInUse, holder)
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	return f, nil
}

func lockHolder(f *os.File) string {
	var b [32]byte
	n, _ := f.ReadAt(b[:], 0)
	if pid := strings.TrimSpace(string(b[:n])); pid != "" {
		return " (pid " + pid + ")"
	}
	return ""
}

// unlock releases a lock taken by lockWriter or lockReader (nil: none).
func unlock(f *os.File) error {
	if f == nil {
		return nil
	}
	return f.Close()
}
