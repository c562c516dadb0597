// Package gomoku is Ocvist's vocabulary: the 15x15 board, points, players,
// rules, win detection and the board diagram format.
//
// A Point is a cell index; Player is Empty, Black or White; Rule is
// Freestyle (five or more wins), Standard (exactly five wins) or Renju
// (White wins with five or more, Black only with exactly five, and Black
// may not play a forbidden point: an overline, a double four or a double
// three of real threes; a five takes precedence). A Board holds one
// position together with views derived from it incrementally: per-line
// bitboards for shape recognition (Window), the set of stones (from which
// Candidates, the empty cells within a radius of any stone, is grown when
// asked for), a Zobrist hash and the move history used by Undo. All tables
// are built at package initialisation.
//
// Where "forbidden" lives: the board's Forbidden is the rule's referee, a
// plain reading of the line words that names the foul (Foul). Play, the
// game's move, asks it and refuses a forbidden point for Black with an
// error wrapping ErrForbidden, leaving the board as it was: a terminal
// re-prompts, a referee (the arena, a protocol engine whose opponent sent
// the move) declares that Black has lost, as a forbidden move loses in
// Renju. Put places a stone without asking (setting up positions, a BOARD
// command whose order is unknown, a search whose moves are legal by
// construction). Package patterns keeps Black's forbidden points as the
// shapes change, for the filter, the threat searches and a GUI's list of
// them; its Position.Play refuses them too. A Black to move whose every
// empty point is forbidden cannot move; Over does not see it (it would
// test every point at every stone): the filter says so and self-play
// scores a draw (Renju's pass is not modelled).
//
// A Board is a plain value: copying it (b2 := *b) gives an independent
// position. It is not safe for concurrent mutation.
//
// Coordinates: human form "h8" has columns a-o left to right and rows 1-15
// bottom to top; the Gomocup form "x,y" is zero-based from the top-left.
// Point p has X() = column and Y() = Gomocup row (0 = top row).
package gomoku
