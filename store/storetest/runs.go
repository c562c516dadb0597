package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"ocvist/store"
)

// CheckRecordRun: handles (each its own connection to one database, as
// jobs on separate machines) record runs at once, rounds times each; the
// numbers taken are 1 to len(handles)·rounds, each once, "runs" is the
// last, and every run's key holds what the handle that took its number
// wrote. A reserved key or "runs" among the fields is refused and takes no
// number.
func CheckRecordRun(t *testing.T, handles []store.Store, rounds int) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	owner := map[int]string{}
	var wg sync.WaitGroup
	errs := make(chan error, len(handles)*rounds)
	for h, d := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				who := fmt.Sprintf("handle %d round %d", h, r)
				n, err := d.RecordRun(ctx, func(n int) map[string]string {
					return map[string]string{fmt.Sprintf("run.%d", n): who, fmt.Sprintf("run.%d.seed", n): strconv.Itoa(h)}
				})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				if prev, ok := owner[n]; ok {
					errs <- fmt.Errorf("run %d taken by %s and %s", n, prev, who)
				}
				owner[n] = who
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := len(handles) * rounds
	m, err := handles[0].Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m["runs"] != strconv.Itoa(total) {
		t.Errorf("runs = %q after %d runs", m["runs"], total)
	}
	for n := 1; n <= total; n++ {
		if who, ok := owner[n]; !ok || m[fmt.Sprintf("run.%d", n)] != who {
			t.Errorf("run.%d = %q, taken by %q", n, m[fmt.Sprintf("run.%d", n)], who)
		}
	}
	for _, bad := range []string{"runs", "key_version"} {
		_, err := handles[0].RecordRun(ctx, func(int) map[string]string { return map[string]string{bad: "x"} })
		if !errors.Is(err, store.ErrReservedMeta) {
			t.Errorf("a run setting %q: %v, want ErrReservedMeta", bad, err)
		}
	}
	if m, err := handles[0].Meta(ctx); err != nil || m["runs"] != strconv.Itoa(total) {
		t.Errorf("after the refused runs: runs = %q (%v), want %d", m["runs"], err, total)
	}
}

// CheckSetMetaAtOnce: handles set the same keys at once, rounds times
// each; none fails (transactions that take the keys' locks in different
// orders deadlock), and each key ends with a value one of them wrote.
func CheckSetMetaAtOnce(t *testing.T, handles []store.Store, rounds int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, len(handles))
	for h, d := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				m := map[string]string{}
				for k := range 8 {
					m[fmt.Sprintf("user.%d", k)] = fmt.Sprintf("%d/%d", h, r)
				}
				if err := d.SetMeta(ctx, m); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	m, err := handles[0].Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 8 {
		if v := m[fmt.Sprintf("user.%d", k)]; v == "" {
			t.Errorf("user.%d not set", k)
		}
	}
}
