package shard

import (
	"bytes"
	"cmp"
	"hash/crc32"

	"ocvist/canon"
	"ocvist/store"
)

// A run file is a sealed, sorted, immutable set of position statistics (a
// worker's shard, a sealed export of a database, or a young run of a
// database; see the package documentation) or of the learning loop's
// teacher games (a teacher shard). Format version 2, all integers
// unsigned varints unless said otherwise:
//
//	header   magic "OCVSRUN\x00", format version (1 or 2, see below), kind
//	         byte ('S' shard, 'E' export, 'Y' young, 'T' teacher shard),
//	         rule byte (gomoku.Rule), key version, board size, id (length +
//	         bytes), meta (length + JSON object of strings)
//	records  a tag byte, then by tag:
//	  1 position: id (8 bytes little-endian, canon.ID of the key), born
//	         (database game count when first seen; 0 in shards and exports:
//	         the merge decides), key (see below), move count, then per
//	         move: x, y (int8 bytes), flags (bit 0: blacklisted), wsum
//	         (zig-zag varint), games
//	  2 ledger: id (length + bytes), seal (length + bytes), games — a shard
//	         whose games an export contains
//	  0 footer: games, black wins, white wins, draws, positions, rows —
//	         always the last record
//	  3 teacher game (format 2, kind 'T' only): a learning loop's game, as
//	         runWriter.teacher writes it
//	  4..    reserved: a reader refuses them rather than skip games' data
//	seal     CRC-32C (Castagnoli, 4 bytes little-endian) of every byte
//	         before it, then the trailer "OCVSEAL\n"
//
// A key is byte 1 and its packed form (canon.AppendPacked: the stone
// count, then about one byte a stone where the text takes five) when it
// packs, else byte 0, its length and its text. The store never reads a
// key's tokens: canon packs, checks and unpacks them. Readers give back the
// text, which is what ids (canon.ID) and order are computed on.
//
// Positions come in strictly increasing (id, key) order (ids compared as
// int64, keys bytewise) with their moves in strictly increasing (x, y)
// order; teacher games in strictly increasing (gen, game) order; a reader
// checks the order, the footer's counts and the CRC, and refuses a file
// without the trailer (not sealed) before reading anything. A run's seal
// (its CRC and size) identifies its content in merge ledgers.
//
// Versions: format 2 added kind 'T' and record type 3, which only it may
// hold. A run without them is written as format 1, byte for byte as
// before, so that a program of format 1 reads every shard, export and
// young run it could before; a teacher shard is format 2, which such a
// program refuses as a whole ("run format 2, this program reads 1")
// rather than skip the games in it. This program reads both.
const (
	Magic    = "OCVSRUN\x00"
	Trailer  = "OCVSEAL\n"
	Version  = 2 // the newest format, which this program reads with 1
	SealSize = 4 + len(Trailer)

	KindShard   = 'S'
	KindExport  = 'E'
	KindYoung   = 'Y'
	KindTeacher = 'T'

	tagFooter   = 0
	tagPosition = 1
	tagLedger   = 2
	tagTeacher  = 3

	flagBlacklisted = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// moveRow is one move's statistics inside a position.
type MoveRow struct {
	Move        canon.Move
	Blacklisted bool
	WSum        int64
	Games       int64
}

// mean is the move's mean weight.
func (m MoveRow) Mean() float64 { return float64(m.WSum) / float64(m.Games) }

// position is one position's statistics as runs and merges carry them.
// Its key is known as text, in its run encoding, or both: reading and
// writing runs passes the encoding through, and the text is decoded only
// where needed (ids equal, rows for the moves table, export).
type Position struct {
	ID             int64
	key            []byte // text, valid when hasKey
	enc            []byte // run encoding (appendKey), valid when hasEnc
	hasKey, hasEnc bool
	Born           int64 // database game count when first seen; 0: not yet known
	Moves          []MoveRow
}

func (p *Position) SetKey(k []byte) {
	p.key, p.hasKey, p.hasEnc = append(p.key[:0], k...), true, false
}

// text is the key as text (the position must have its key).
func (p *Position) Text() []byte {
	if !p.hasKey {
		p.key, p.hasKey = DecodeKey(p.key[:0], p.enc), true
	}
	return p.key
}

// encoded is the key in its run encoding.
func (p *Position) Encoded() []byte {
	if !p.hasEnc {
		p.enc, p.hasEnc = AppendKey(p.enc[:0], p.key), true
	}
	return p.enc
}

// copyKey makes p's key q's.
func (p *Position) CopyKey(q *Position) {
	p.ID, p.hasKey, p.hasEnc = q.ID, q.hasKey, q.hasEnc
	if q.hasKey {
		p.key = append(p.key[:0], q.key...)
	}
	if q.hasEnc {
		p.enc = append(p.enc[:0], q.enc...)
	}
}

// cmpPos orders positions by (id, key text); equal encodings are equal
// keys, so the text is needed only for different keys of one id.
func ComparePositions(a, b *Position) int {
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	if a.hasEnc && b.hasEnc && bytes.Equal(a.enc, b.enc) {
		return 0
	}
	return bytes.Compare(a.Text(), b.Text())
}

// games is the number of games that reached the position: each plays
// exactly one recorded move there.
func (p *Position) Games() int64 {
	var n int64
	for _, m := range p.Moves {
		n += m.Games
	}
	return n
}

func (p *Position) Blacklisted() bool {
	for _, m := range p.Moves {
		if m.Blacklisted {
			return true
		}
	}
	return false
}

// totals counts games by result.
type Counts struct {
	Games, Black, White, Draws int64
}

func (t *Counts) Add(u Counts) {
	t.Games += u.Games
	t.Black += u.Black
	t.White += u.White
	t.Draws += u.Draws
}

// runHeader is what a run says about itself.
type Header struct {
	Version byte // the format (formatOf(kind) when written)
	Kind    byte
	Config  store.Config
	ID      string
	Meta    map[string]string
}

// runFooter is a run's closing counts.
type Footer struct {
	Counts
	Positions, Rows int64
}

// ledgerEntry is a merged source: a shard id and its seal.
type LedgerEntry struct {
	ID, Seal string
	Games    int64
}
