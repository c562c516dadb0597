package shard

import (
	"fmt"

	"ocvist/store"
)

// ShardInfo describes a sealed run file.
type ShardInfo struct {
	ID        string
	Seal      string
	Config    store.Config
	Games     int64
	Positions int64
	Rows      int64
}

// ReadShard reads the sealed run file at path through, checking it as
// Merge does, and describes it.
func ReadShard(path string) (ShardInfo, error) {
	h, foot, _, seal, err := Verify(path)
	if err != nil {
		return ShardInfo{}, fmt.Errorf("store: read shard %q: %w", path, err)
	}
	return ShardInfo{ID: h.ID, Seal: seal, Config: h.Config, Games: foot.Games, Positions: foot.Positions, Rows: foot.Rows}, nil
}
