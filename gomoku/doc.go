// Package gomoku is Ocvist's vocabulary: the 15x15 board, points, players,
// rules, win detection and the board diagram format.
//
// A Point is a cell index; Player is Empty, Black or White; Rule is Freestyle
// (five or more wins) or Standard (exactly five wins). A Board holds one
// position together with views derived from it incrementally: per-line
// bitboards for shape recognition (Window), the set of stones (from which
// Candidates, the empty cells within a radius of any stone, is grown when
// asked for), a Zobrist hash and the move history used by Undo. All tables
// are built at package initialisation.
//
// A Board is a plain value: copying it (b2 := *b) gives an independent
// position. It is not safe for concurrent mutation.
//
// Coordinates: human form "h8" has columns a-o left to right and rows 1-15
// bottom to top; the Gomocup form "x,y" is zero-based from the top-left.
// Point p has X() = column and Y() = Gomocup row (0 = top row).
package gomoku
