// Package canon gives every gomoku position one name — its canonical key —
// whatever its place on the board and its orientation, and maps moves into
// and out of the frame that name describes.
//
// # Key format, version 1
//
// This comment is the one place that specifies the key; Version names it.
// Changing anything below is a migration of every stored statistic, never a
// silent change: bump Version and convert.
//
// Only the stones' bounding box matters (translation is ignored). A stone
// whose column is c and row r, counted from the box's corner, becomes the
// 5-byte token
//
//	CCRRs
//
// where CC is c as two decimal digits, RR is r as two decimal digits and s
// is 'x' for Black or 'o' for White. The tokens of a position are sorted by
// row, then by column, and concatenated. Each of the 8 symmetries of the
// box (4 rotations, each optionally mirrored; see Sym) gives such a string;
// the key is the lexicographically (bytewise) smallest of the 8. The empty
// board's key is "". On a 15x15 board every column and row lies in 00..14.
//
// Orientation of the identity image (Sym Identity): column c = x - minX and
// row r = y - minY, where x is the board column (a = 0) and y the Gomocup
// row (0 = top, human row 15), and minX, minY are the box's left column and
// top row. Because the 8 images of a box form a closed set, the key does
// not depend on this choice; only the numbering of Sym does. The
// reference test vector of the design notes
// ("0000x0101o0201x0301x0002o0202o0302o0402x0303o0503x" and its 8 images,
// designVector in canon_test.go) holds under it and is checked by
// TestDesignVector.
//
// # Packed form and id
//
// A key's packed form (AppendPacked, PackedLen, AppendUnpacked) is how the
// store writes it in its run files and shards: a byte n, the number of
// stones (1 to MaxPackedStones), then for each token in key order the uvarint of (cell − previous cell) << 1 | s,
// where cell = row·16 + column, the previous cell of the first token is −1,
// and s is 0 for 'x' and 1 for 'o'. The cells strictly increase (the tokens
// are sorted by row, then column), so every difference is at least 1 and a
// stone takes one byte when it lies within 63 cells of the one before.
// Only the empty key, a key of more than MaxPackedStones stones and token
// lists that are not in that order do not pack; the store writes those as
// text. Like the text form, this is part of key format Version: changing it
// is a migration.
//
// ID is a key's fixed-size id, which the store orders and routes positions
// by: SplitMix64 over the key's text, splitmix.Derive(len(key), c₁, c₂, …)
// where cᵢ are the key's 8-byte little-endian chunks (the last one
// zero-padded), as an int64. Two keys may share an id: it spreads positions
// evenly and compares in one instruction, while the key tells two positions
// of one id apart.
//
// # Canonical frame and moves
//
// The canonical frame is the key's own coordinate system: Move{X, Y} is
// column X and row Y counted from the corner of the canonical image of the
// box, exactly as in the key's tokens. A move may lie outside the box, so
// its offsets may be negative or exceed the box. For a symmetric position
// (several symmetries give the key) cells that those symmetries map onto
// each other are one move, represented by its smallest image, ordered by Y
// then X; see Position.ToCanon. Position.FromCanon maps a move back onto the
// board exactly: to the cell itself when the position has one symmetry,
// otherwise to an on-board cell of the move's class.
//
// For the empty board there is no box; its frame is the whole board, with
// all 8 board symmetries preserving it, so the 225 first moves fall into the
// board's 15 symmetry classes.
//
// # Use
//
//	pos := canon.Of(board)      // key, symmetries and frame, one allocation
//	m := pos.ToCanon(p)         // store (pos.Key, m)
//	p2, ok := pos.FromCanon(m)  // back on this board
//
// Decode, Encode and Validate read and write keys as stone lists for tools
// and tests; they return errors wrapping ErrBadKey on bad input and never
// panic on any input.
//
// The package is pure: it never prints, exits or starts goroutines, keeps
// no state beyond tables built at initialisation, and all its functions
// are safe for concurrent use.
package canon

// Version is the version of the key format specified above.
const Version = 1
