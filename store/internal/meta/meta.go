package meta

import (
	"fmt"
	"strconv"
	"time"

	"ocvist/gomoku"
	"ocvist/store"
)

// Reserved meta keys, managed by the store.
const (
	KeySchemaVersion = "schema_version"
	KeyKeyVersion    = "key_version"
	KeyRule          = "rule"
	KeyBoardSize     = "board_size"
	KeyCreated       = "created"
	KeyID            = "db_id"
	KeyKind          = "kind"
	KeyPublished     = "published"
	KeyState         = "state"
	KeyPruneMin      = "prune_min"
)

var Reserved = map[string]bool{
	KeySchemaVersion: true, KeyKeyVersion: true, KeyRule: true, KeyBoardSize: true,
	KeyCreated: true, KeyID: true, KeyKind: true, KeyPublished: true, KeyState: true, KeyPruneMin: true,
}

const KindDB = "db"

// header is what a database file says about itself in its meta table.
type Header struct {
	Config store.Config
	Schema int
	ID     string
	Kind   string
	State  string
}

// parseHeader extracts the reserved meta keys.
func Parse(m map[string]string) (Header, error) {
	var h Header
	var err error
	num := func(k string) int {
		v, e := strconv.Atoi(m[k])
		if e != nil && err == nil {
			err = fmt.Errorf("%w: meta %s = %q", store.ErrNotOcvist, k, m[k])
		}
		return v
	}
	h.Schema = num(KeySchemaVersion)
	h.Config.KeyVersion = num(KeyKeyVersion)
	h.Config.BoardSize = num(KeyBoardSize)
	rule, rerr := gomoku.ParseRule(m[KeyRule])
	if rerr != nil && err == nil {
		err = fmt.Errorf("%w: meta rule = %q", store.ErrNotOcvist, m[KeyRule])
	}
	h.Config.Rule, h.ID, h.Kind, h.State = rule, m[KeyID], m[KeyKind], m[KeyState]
	if err == nil && (h.ID == "" || h.Kind == "") {
		err = fmt.Errorf("%w: meta lacks db_id or kind", store.ErrNotOcvist)
	}
	return h, err
}

// compatible checks that a file's configuration matches the wanted one.
func Compatible(want store.Config, h Header) error {
	switch {
	case h.Config.Rule != want.Rule:
		return fmt.Errorf("%w: file has rule %s, want %s", store.ErrRuleMismatch, h.Config.Rule, want.Rule)
	case h.Config.KeyVersion != want.KeyVersion:
		return fmt.Errorf("%w: file has key version %d, want %d", store.ErrKeyVersion, h.Config.KeyVersion, want.KeyVersion)
	case h.Config.BoardSize != want.BoardSize:
		return fmt.Errorf("%w: file has board size %d, want %d", store.ErrBoardSize, h.Config.BoardSize, want.BoardSize)
	}
	return nil
}

func Now() string { return time.Now().UTC().Format(time.RFC3339) }

// KeyRuns is the number of runs recorded (store.Store.RecordRun).
const KeyRuns = "runs"

// NextRun is the record of a new run given the "runs" value stored (""
// if none): its number n and the keys to set, fields(n) and "runs" = n.
// fields may set neither "runs" nor a reserved key.
func NextRun(runs string, fields func(n int) map[string]string) (int, map[string]string, error) {
	n, _ := strconv.Atoi(runs)
	n++
	m := fields(n)
	for k := range m {
		if Reserved[k] || k == KeyRuns {
			return 0, nil, fmt.Errorf("meta %q: %w", k, store.ErrReservedMeta)
		}
	}
	m[KeyRuns] = strconv.Itoa(n)
	return n, m, nil
}
