package shard

import (
	"crypto/rand"
	"encoding/hex"
)

// newID returns 16 random hex digits from crypto/rand.
func NewID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("store: crypto/rand: " + err.Error()) // never fails on supported systems
	}
	return hex.EncodeToString(b[:])
}
