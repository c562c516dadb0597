package store

import "ocvist/internal/splitmix"

// PositionID is the fixed-size id of a position key: SplitMix64 over the
// key's bytes, exactly splitmix.Derive(len(key), c₁, c₂, …) where cᵢ are the
// key's 8-byte little-endian chunks (the last one zero-padded), as an int64.
// Run files and the moves table order positions by (id, key), so the id
// spreads positions evenly and compares in one instruction, while the key
// keeps two positions of the same id apart (ids are a routing hint, never an
// identity, except in the Blacklist). Part of the run format: changing it
// is a new format version. Guarded by BenchmarkPositionID.
func PositionID(key string) int64 {
	z := splitmix.Mix(uint64(len(key)))
	for len(key) >= 8 {
		c := uint64(key[0]) | uint64(key[1])<<8 | uint64(key[2])<<16 | uint64(key[3])<<24 |
			uint64(key[4])<<32 | uint64(key[5])<<40 | uint64(key[6])<<48 | uint64(key[7])<<56
		z = splitmix.Mix(z + splitmix.Golden + c)
		key = key[8:]
	}
	if len(key) > 0 {
		var c uint64
		for i := len(key) - 1; i >= 0; i-- {
			c = c<<8 | uint64(key[i])
		}
		z = splitmix.Mix(z + splitmix.Golden + c)
	}
	return int64(z)
}
