package postgres

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"ocvist/internal/pgtest"
	"ocvist/store"
)

// TestPGModels: a model comes back byte for byte with its SHA-256; a put
// replaces; the list is ordered and has no bytes; a missing model is
// ErrNoModel, a bad role or generation ErrInvalidConfig, and bytes that no
// longer match their digest ErrCorrupt.
func TestPGModels(t *testing.T) {
	p := mustPG(t, pgtest.SchemaURL(t))
	ctx := context.Background()
	big := bytes.Repeat([]byte("forest "), 1<<20) // 7 MiB, as a real policy
	puts := []struct {
		gen  int
		role string
		b    []byte
	}{{1, store.RoleValue, []byte("v1")}, {1, store.RolePolicy, []byte("p1 first")}, {0, store.RolePolicy, big}, {1, store.RolePolicy, []byte("p1")}}
	for _, m := range puts {
		if err := p.PutModel(ctx, m.gen, m.role, m.b); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []store.Model{{Gen: 0, Role: store.RolePolicy, Bytes: big}, {Gen: 1, Role: store.RoleValue, Bytes: []byte("v1")},
		{Gen: 1, Role: store.RolePolicy, Bytes: []byte("p1")}} { // the second put replaced the first
		got, err := p.Model(ctx, want.Gen, want.Role)
		if err != nil || !bytes.Equal(got.Bytes, want.Bytes) || got.Size != int64(len(want.Bytes)) || got.SHA256 != sha256Hex(want.Bytes) {
			t.Fatalf("model %d %s: %d bytes, %v; want %d", want.Gen, want.Role, len(got.Bytes), err, len(want.Bytes))
		}
	}
	list, err := p.Models(ctx)
	if err != nil || len(list) != 3 || list[0].Gen != 0 || list[0].Size != int64(len(big)) || list[0].Bytes != nil ||
		list[1].Role != store.RolePolicy || list[2].Role != store.RoleValue || list[2].SHA256 != sha256Hex([]byte("v1")) {
		t.Errorf("list: %+v, %v", list, err)
	}
	if _, err := p.Model(ctx, 2, store.RolePolicy); !errors.Is(err, store.ErrNoModel) {
		t.Errorf("missing model: %v, want ErrNoModel", err)
	}
	for _, bad := range []struct {
		gen  int
		role string
	}{{1, "prior"}, {-1, store.RolePolicy}} {
		if err := p.PutModel(ctx, bad.gen, bad.role, nil); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("put %d %q: %v, want ErrInvalidConfig", bad.gen, bad.role, err)
		}
	}
	if _, err := p.pool.Exec(ctx, "UPDATE models SET bytes = 'p2' WHERE gen = 1 AND role = 'policy'"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Model(ctx, 1, store.RolePolicy); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("changed bytes: %v, want ErrCorrupt", err)
	}
}
