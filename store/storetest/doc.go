// Package storetest holds what the tests of store's backends share: the
// configuration they create stores with, seeded random games, the slow
// reference twin of Batch + shard + Merge (Reference), shards and teacher
// shards made and merged in one call, and the acceptance test of the
// loop's claims (CheckClaims), which every backend passes.
//
// Only tests import it (internal/layout's test checks it): its helpers
// fail the test (t.Fatal) instead of returning errors.
package storetest

import (
	"ocvist/gomoku"
	"ocvist/store"
)

// Config is the configuration the backends' tests create stores with.
var Config = store.Config{Rule: gomoku.Freestyle, KeyVersion: 1, BoardSize: 15}
