// Package selfplay plays one gomoku game against itself and records it for
// the store: every move as (canonical key, canonical move, weight), the
// loser's last move for the blacklist, and the result.
//
// Every move is drawn from the pattern filter's candidates by a Policy
// (Uniform in generation 0); a move the blacklist names is never chosen while
// another candidate exists. A game starts from the empty board (first stone in
// the centre, not recorded: it is no choice) or from a random opening of the
// configured set (its stones are not recorded either), and is a draw when the
// board is full or the ply limit is reached. Weights: +1 for each move of the
// winner, −1 for each move of the loser, 0 in a draw.
//
// The package is synchronous and silent. A Player is used by one goroutine;
// randomness comes only from the *rand.Rand the caller passes.
package selfplay
