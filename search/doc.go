// Package search is Ocvist's engine: threat-space search (VCF, VCT) and an
// iterative-deepening principal-variation alpha-beta with a transposition
// table, over the incremental shapes of package patterns.
//
// # Use
//
//	s := search.New(search.DefaultConfig())
//	res, err := s.Search(ctx, pos, search.Limits{Nodes: 20000}) // or Clock, Depth
//	pos.Play(res.Move)
//
// Search works on the caller's patterns.Position and restores it before it
// returns. A Searcher keeps its transposition table between calls (a game's
// positions share much); Clear forgets it. ctx stops a search: once it is
// done the search returns at once with the best move of its last finished
// iteration (Gomocup's YXSTOP). The caller makes ctx before the search
// starts, so a stop that comes before the search begins is never lost.
//
// # What it does
//
// At the root: a five, a forced block, an open four, then a VCF (victory by
// continuous fours, patterns.VCF), a VCT (continuous fours and threes,
// every defence of the opponent tried, counter-fours included) and a
// proof-number search (proof.go: fours, threes and quiet moves after
// which the side would win by a VCF; against such a threat the opponent
// tries every move that could refute it) are tried first, each returning
// a winning line. Then alpha-beta, depth 1, 2, ...:
// every node ends the game or narrows the moves from the threat classes
// kept by patterns.Position — our five wins; their five-point must be
// blocked (a chain of such blocks extends the search); our open-four point
// wins; their open threes (two-five-point cells) leave only the cells that
// stop all of them and our counter-fours; otherwise the cells near stones,
// ranked by a pattern score (what a stone there makes for us plus what it
// takes from the opponent), the best few by depth. A VCF is tried wherever
// the side to move has a four to make. Off the principal variation, a node
// near the horizon (three plies, two) where the opponent threatens nothing
// is cut when its static evaluation beats beta by a margin (reverse
// futility pruning), and judged at the horizon when it falls short of
// alpha by a margin (razoring); neither claims a loss. Deeper, such a
// node whose evaluation beats beta by a margin searches its moves a ply
// shallower, those that make a four excepted (the fail-high reduction).
// Scores are from the side to move's
// view: Mate-n for a win n plies away, -(Mate-n) for a loss; otherwise a
// weighted sum of both sides' shape counts (Position.ShapeCounts).
//
// # Sound mates
//
// A mate score is a proof against every defence: one winning move proves
// a win, but a loss is claimed only over every move that can change the
// outcome — a forced set, or every cell within the board's radius of the
// stones. When each of the few ranked moves a node kept loses, the rest
// are searched too, until one does not lose (or all do: then the node is
// lost, and its score is the longest loss). A win that needs more stones
// than the board's ply limit leaves is a draw. The threat searches' wins
// hold against every defence: the opponent's moves they leave out are
// shown not to matter (for a VCF threat, vcfDefences; its slow twin is
// TestVCFDefencesTwin). TestAnnouncedWinsSound
// checks every win and loss announced in 2,000 positions of seeded games
// with a full-width twin, to the claim's full length.
//
// A proved win is played at once, with its line (Result.PV, to the
// five). A proved loss is not given up: the search goes on deepening
// within its limits (a lost root costs its whole budget, where a won one
// returns early), every root move in a full window, and plays the move
// that holds out longest, and of those one that makes a four, else a
// three: the defence a weaker opponent is likeliest to get wrong.
//
// # Determinism
//
// A search bounded by Nodes or Depth is deterministic: the same position,
// limits and table contents give the same result. Deadlines and stops are
// not (they depend on the machine). Tests use node and depth limits only.
//
// # Time and threads
//
// A game's search is given the clock as the manager states it
// (Limits.Clock: turn limit, match time left, increment); the time
// manager (time.go) decides the move's optimum and maximum time from it,
// and spends more when the best move changes or the score falls, little
// on a forced move. With Config.Threads above 1 a search runs helper
// threads beside its own (Lazy SMP over the shared transposition table,
// whose slots are read and written atomically; see Searcher); one thread
// at a node or depth limit is deterministic, and the bench signature
// (Bench, TestBenchSignature) pins what it does. Every tuning number is a
// field of Config.
//
// The package never prints or exits; randomness it has none. The only
// goroutines it starts are a search's helper threads, done before Search
// returns. A Searcher is used by one goroutine at a time.
package search
