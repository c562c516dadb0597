// Package arena measures players against each other: the agents that
// think (Search, Forest, Patterns; package agent holds the interface and
// Random), a paired-game Match runner from opening sets (package
// openings) with an Elo estimate, the SPRT and pair statistics, and an SGF
// writer and reader for the games.
//
// Match plays every opening twice with the colours swapped: game 2i gives
// opening i (mod the set) to A as Black, game 2i+1 the same opening to B as
// Black. Without openings every game starts with Black's stone in the centre
// (h8). Every move is asked with the game's clock as it stands (the turn
// limit, the match clock's time left: gomoku.Clock), which the agent may
// use as it likes. An agent that returns an error, an illegal move, a move
// after its turn limit or after its match time ran out loses that game;
// the reason is recorded in the Game and the match goes on. The Result
// keeps each agent's move times: the mean of the moves that were not
// forced (Forced) and the longest.
//
// Elo: the score s = (wins + draws/2) / games of A maps to the logistic Elo
// difference -400·log10(1/s - 1). The 95% interval maps the ends of the
// score's interval through the same function; the score interval is
// Wilson's, generalised to draws (see ScoreInterval): close to the normal
// approximation s ± 1.96·σ/√n of cutechess-cli in the middle, but with a
// finite lower end when A won every game. A score of 0 or 1 gives an
// infinite difference.
//
// Like every Ocvist library, arena never prints or exits. Match calls the
// agents one at a time on the caller's goroutine; MatchFactories plays
// Config.Concurrency games at once on goroutines it waits for before it
// returns, and reports progress through a callback on the caller's
// goroutine, in game order.
package arena
