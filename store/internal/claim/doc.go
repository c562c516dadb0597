// Package claim is the learning loop's claim protocol that both backends
// of package store run (store.LoopMember): the queries on teacher_plans,
// teacher_claims and teacher_games and the choice of the next block,
// through a [Querier] each backend implements.
package claim
