package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"ocvist/store"
	"ocvist/store/internal/meta"

	"github.com/jackc/pgx/v5"
)

var _ store.ModelStore = (*DB)(nil)

// checkRole refuses a role other than RolePolicy and RoleValue.
func checkRole(gen int, role string) error {
	if gen < 0 || (role != store.RolePolicy && role != store.RoleValue) {
		return fmt.Errorf("store: model of generation %d, role %q: %w (want generation ≥ 0, role %s or %s)",
			gen, role, store.ErrInvalidConfig, store.RolePolicy, store.RoleValue)
	}
	return nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// PutModel stores b as generation gen's model of the role (schema 3's
// models table), replacing what the row held, in one statement.
func (p *DB) PutModel(ctx context.Context, gen int, role string, b []byte) error {
	if err := checkRole(gen, role); err != nil {
		return err
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO models (gen, role, bytes, sha256, created) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (gen, role) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, created = excluded.created`,
		gen, role, b, sha256Hex(b), meta.Now())
	return p.wrap(fmt.Sprintf("put generation %d's %s model into", gen, role), err)
}

// Model returns generation gen's model of the role, its bytes checked
// against the SHA-256 stored with them.
func (p *DB) Model(ctx context.Context, gen int, role string) (store.Model, error) {
	if err := checkRole(gen, role); err != nil {
		return store.Model{}, err
	}
	m := store.Model{Gen: gen, Role: role}
	err := p.pool.QueryRow(ctx, "SELECT bytes, sha256, created FROM models WHERE gen = $1 AND role = $2", gen, role).
		Scan(&m.Bytes, &m.SHA256, &m.Created)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = store.ErrNoModel
	case err == nil && sha256Hex(m.Bytes) != m.SHA256:
		err = fmt.Errorf("%w: the bytes' SHA-256 is %s, the row says %s", store.ErrCorrupt, sha256Hex(m.Bytes), m.SHA256)
	}
	m.Size = int64(len(m.Bytes))
	return m, p.wrap(fmt.Sprintf("generation %d's %s model in", gen, role), err)
}

// Models lists the models kept, by generation and role, without bytes.
func (p *DB) Models(ctx context.Context) ([]store.Model, error) {
	rows, err := p.pool.Query(ctx, "SELECT gen, role, length(bytes), sha256, created FROM models ORDER BY gen, role")
	if err != nil {
		return nil, p.wrap("models of", err)
	}
	var out []store.Model
	var m store.Model
	_, err = pgx.ForEachRow(rows, []any{&m.Gen, &m.Role, &m.Size, &m.SHA256, &m.Created}, func() error {
		out = append(out, m)
		return nil
	})
	return out, p.wrap("models of", err)
}
