// Package patterns is Ocvist's tactics: line shapes, the seed's threat
// detectors, a VCF search and the hierarchical move filter that keeps
// self-play from blundering.
//
// # Shapes
//
// For a side S, an empty cell c and a direction, the Shape is what a stone
// of S at c would make on that line (RIF definitions, for the rule of the
// board; under Renju, Black's shapes are Standard's and White's
// Freestyle's). A "five-point" is an empty cell where one more stone of S
// makes a five whose run contains c.
//
//   - Five: a run through c of exactly five (Standard) or five or more
//     (Freestyle). Overline: under Standard, a run of six or more; it does
//     not win and is no threat.
//   - Four: exactly one five-point (SSSS., SSS.S, SS.SS). Under Standard a
//     cell that would complete only an overline is no five-point, so a
//     "four" whose only completion is an overline is not a four.
//   - StraightFour: .SSSS. with both ends five-points. DoubleFour: two
//     five-points in the one line otherwise, e.g. S.SSS.S — the seed's
//     double4_inline. Both are unstoppable.
//   - Three (OpenThree when the stones through c are a run of three, as in
//     .SSS., else BrokenThree, as in .S.SS.): one more stone can make a
//     StraightFour or DoubleFour. x.SSS.x is therefore not a three.
//   - ClosedThree: one more stone can make a Four but never two five-points.
//   - Two: one more stone can make a three of any kind. None otherwise.
//
// A shape depends only on the gomoku.WindowRadius (5) cells each side of c:
// a five through c lies within 4 cells of it and its end cells (which
// decide overlines under Standard) within 5. Shapes are therefore looked up
// in tables built at package initialisation for both rules, indexed by a
// base-3 key of the 10 neighbours (see key); under Freestyle the cells 5
// away never matter, and a Position reads a smaller table of the 8 nearest
// cells (table.near), which stays in the L1 cache. Position keeps every
// cell's shapes up to date as stones are placed, and Undo puts back the
// shapes its stone's Put recorded in a journal.
//
// # Classes and the seed's names
//
// Position keeps, for each side, the sets of cells whose stone would make
// a Five (MakesFive), two five-points (MakesWin: StraightFour, DoubleFour
// or fours in two directions), any four (MakesFour), a three (MakesThree),
// or a four-three or double three (MakesDouble).
//
// # Renju
//
// Under Renju a Position also keeps Black's forbidden points (Forbidden,
// Fouls, Foul; the rule is gomoku.Board.Forbidden's). The test is read
// from the shape codes: a cell is forbidden only where Black's codes show
// an Overline, two fours or two threes and no Five, and the codes decide
// all but a double three, whose threes must be real: a straight-four point
// (the table's gain, less the double-four points) must not be forbidden
// with the stone placed. That point's codes are the position's except on
// the one line it shares with the stone, looked up again from the line
// words with the stone added (deeper, every trial stone added; none is
// ever placed). The recursion stops at gomoku.FoulDepth (4); on 100,000
// positions the unbounded slow twin never disagrees with it, and at 3
// neither. Put recomputes the set from the few candidate cells, Undo
// restores it.
//
// Black's class sets leave its forbidden points out, so that a forbidden
// point is neither a threat nor a defence of Black's: a Black three that
// only forbidden points complete is none (Threats, the seed's detectors),
// a White threat lists no forbidden point among its defences (a White
// four with none cannot be blocked), the filter never offers one, VCF
// never plays one. The shapes (Shape, Codes, Summary, ShapeCounts, Flags)
// still tell what a stone there would make. White may win by forcing Black
// onto a forbidden point: a White four whose one five-point is forbidden
// to Black once it stands wins like an open four (the filter's
// Trivial2nd, a threat Black defends beforehand, a VCF whose line gives
// Black's reply as its first legal point). Position.Play refuses a
// forbidden point (gomoku.ErrForbidden); Put does not ask.
//
// The seed's detectors are kept by name: Open3 (open3), Open3Incompl
// (open3_incompl), HalfClosed4 (half_closed4), Closed4Incompl
// (closed4_incompl) and Double4Inline (double4_inline); each reports the
// stones of the shape and the cells that defend against it.
//
// # The filter
//
// Filter applies the seed's hierarchy for the side to move, each level
// attack first, then defence: Trivial (make five; else block the
// opponent's five-points), Trivial2nd (make two five-points; else defend
// the opponent's threes, counter-fours included), Force (make a four-three
// or double three unless mini-force finds that the opponent refutes it
// with fours; else take the opponent's double-threat points), then the
// Radius candidates. The seed puts double4_inline under force; as it gives
// two five-points at once it is found at Trivial2nd here. Under Renju a
// level whose cells are all forbidden to Black (a block it cannot make)
// passes to the next.
//
// # Concurrency and allocation
//
// The package has no mutable shared state: tables are read-only after
// init, and every buffer (candidate slices, the VCF transposition table) is
// owned by the caller. A Position must not be used by two goroutines at
// once; independent positions may. Nothing here prints, exits or starts
// goroutines.
package patterns
