package shard

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/store"
)

// runReader reads a sealed run sequentially, checking order, counts and
// CRC as it goes, from a file or a young run's rows (any io.ReaderAt).
type Reader struct {
	f        io.ReaderAt
	closer   io.Closer // nil: nothing to close
	Path     string    // the file, or the young run's name, for messages
	Header   Header
	size     int64 // file size
	crcEnd   int64 // bytes covered by the CRC
	loaded   int64 // file bytes read into buf so far
	crc      uint32
	buf      []byte
	r, w     int
	pos      Position
	started  bool
	Footer   Footer
	counted  Footer
	Ledger   []LedgerEntry
	done     bool
	last     Position // order check
	lastTG   [2]int   // (gen, game) of the last teacher game
	Strict   bool     // also check every position's id against its key
	SkipKeys bool     // leave keys unread (ids and counts only); order checked by id
	// keep, when set, passes over the positions whose id it rejects
	// without decoding them.
	Keep func(id int64) bool
}

// isRunFile reports whether the file at path starts with the run magic.
func IsRunFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [len(Magic)]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == Magic
}

// openRun opens the run at path and reads its header. A file without the
// trailer gives ErrUnpublished, one without the magic ErrNotOcvist.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = fmt.Errorf("%w: is a directory", store.ErrNotOcvist)
	}
	var r *Reader
	if err == nil {
		r, err = NewReader(f, fi.Size(), path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// newRunReader reads the header of the size bytes of a run in src.
func NewReader(src io.ReaderAt, size int64, path string) (*Reader, error) {
	r := &Reader{f: src, Path: path, size: size, buf: make([]byte, 1<<16)}
	var magic [len(Magic)]byte
	if n, _ := src.ReadAt(magic[:], 0); n < len(magic) || string(magic[:]) != Magic {
		return nil, fmt.Errorf("%w: no run or database header", store.ErrNotOcvist)
	}
	var trailer [len(Trailer)]byte
	if r.size < int64(len(Magic)+SealSize) {
		return nil, fmt.Errorf("%w: run file of %d bytes, not sealed", store.ErrUnpublished, r.size)
	}
	if _, err := src.ReadAt(trailer[:], r.size-int64(len(trailer))); err != nil {
		return nil, err
	}
	if string(trailer[:]) != Trailer {
		return nil, fmt.Errorf("%w: no seal at the end (still being written, or cut short)", store.ErrUnpublished)
	}
	r.crcEnd = r.size - int64(SealSize)
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

// close closes the run's file, if it has one.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// fill makes at least n unread bytes available, fewer only at the end of
// the CRC-covered part of the file.
func (r *Reader) fill(n int) error {
	if r.w-r.r >= n {
		return nil
	}
	copy(r.buf, r.buf[r.r:r.w])
	r.w -= r.r
	r.r = 0
	if n > len(r.buf) {
		nb := make([]byte, max(n, 2*len(r.buf)))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	for r.w < n && r.loaded < r.crcEnd {
		want := min(int64(len(r.buf)-r.w), r.crcEnd-r.loaded)
		k, err := r.f.ReadAt(r.buf[r.w:r.w+int(want)], r.loaded)
		r.crc = crc32.Update(r.crc, castagnoli, r.buf[r.w:r.w+k])
		r.w += k
		r.loaded += int64(k)
		if k == 0 && err != nil {
			return fmt.Errorf("%w: read: %v", store.ErrCorrupt, err)
		}
	}
	if r.w-r.r < n {
		return fmt.Errorf("%w: run cut short", store.ErrCorrupt)
	}
	return nil
}

func (r *Reader) byte() (byte, error) {
	if err := r.fill(1); err != nil {
		return 0, err
	}
	r.r++
	return r.buf[r.r-1], nil
}

func (r *Reader) uvarint() (uint64, error) {
	_ = r.fill(binary.MaxVarintLen64) // may end early; Uvarint tells
	v, n := binary.Uvarint(r.buf[r.r:r.w])
	if n <= 0 {
		return 0, fmt.Errorf("%w: bad number", store.ErrCorrupt)
	}
	r.r += n
	return v, nil
}

func (r *Reader) varint() (int64, error) {
	_ = r.fill(binary.MaxVarintLen64)
	v, n := binary.Varint(r.buf[r.r:r.w])
	if n <= 0 {
		return 0, fmt.Errorf("%w: bad number", store.ErrCorrupt)
	}
	r.r += n
	return v, nil
}

// count reads a non-negative count of at most max.
func (r *Reader) count(max uint64) (int64, error) {
	v, err := r.uvarint()
	if err == nil && v > max {
		err = fmt.Errorf("%w: count %d out of range", store.ErrCorrupt, v)
	}
	return int64(v), err
}

// bytes reads a length-prefixed byte string into dst.
func (r *Reader) bytes(dst []byte) ([]byte, error) {
	n, err := r.count(1 << 20)
	if err != nil {
		return nil, err
	}
	if err := r.fill(int(n)); err != nil {
		return nil, err
	}
	dst = append(dst[:0], r.buf[r.r:r.r+int(n)]...)
	r.r += int(n)
	return dst, nil
}

func (r *Reader) readHeader() error {
	if err := r.fill(len(Magic) + 3); err != nil {
		return err
	}
	r.r += len(Magic)
	if v := r.buf[r.r]; v < 1 || v > Version {
		return fmt.Errorf("%w: run format %d, this program reads 1 to %d", store.ErrSchemaVersion, v, Version)
	}
	r.Header.Version, r.Header.Kind, r.Header.Config.Rule = r.buf[r.r], r.buf[r.r+1], gomoku.Rule(r.buf[r.r+2])
	r.r += 3
	kv, err := r.count(1 << 16)
	if err != nil {
		return err
	}
	bs, err := r.count(1 << 16)
	if err != nil {
		return err
	}
	r.Header.Config.KeyVersion, r.Header.Config.BoardSize = int(kv), int(bs)
	id, err := r.bytes(nil)
	if err != nil {
		return err
	}
	meta, err := r.bytes(nil)
	if err != nil {
		return err
	}
	r.Header.ID = string(id)
	if err := json.Unmarshal(meta, &r.Header.Meta); err != nil {
		return fmt.Errorf("%w: run meta: %v", store.ErrCorrupt, err)
	}
	switch {
	case r.Header.Kind != KindShard && r.Header.Kind != KindExport && r.Header.Kind != KindYoung && r.Header.Kind != KindTeacher:
		return fmt.Errorf("%w: run kind %q", store.ErrCorrupt, r.Header.Kind)
	case r.Header.Kind == KindTeacher && r.Header.Version < 2:
		return fmt.Errorf("%w: a teacher shard in run format %d (teacher shards are format 2)", store.ErrCorrupt, r.Header.Version)
	case r.Header.ID == "":
		return fmt.Errorf("%w: run without id", store.ErrCorrupt)
	}
	return r.Header.Config.Validate()
}

// next returns the next position, or nil after the last one once the
// footer and the CRC have been checked. The position and its slices are
// valid until the next call.
func (r *Reader) Next() (*Position, error) {
	for !r.done {
		tag, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagPosition:
			if r.Keep != nil {
				if err := r.fill(8); err != nil {
					return nil, err
				}
				if id := int64(binary.LittleEndian.Uint64(r.buf[r.r:])); !r.Keep(id) {
					if err := r.skipPosition(); err != nil {
						return nil, err
					}
					continue
				}
			}
			return r.position()
		case tagLedger:
			if err := r.ledgerEntry(); err != nil {
				return nil, err
			}
		case tagFooter:
			if err := r.readFooter(); err != nil {
				return nil, err
			}
		default:
			return nil, r.unexpected(tag)
		}
	}
	return nil, nil
}

// unexpected is the error for a record of type tag where the reader does
// not read it: one of a kind this run cannot hold, or of a newer format.
func (r *Reader) unexpected(tag byte) error {
	switch {
	case tag == tagTeacher && r.Header.Kind != KindTeacher:
		return fmt.Errorf("%w: a teacher game in a run of kind %q", store.ErrCorrupt, r.Header.Kind)
	case tag == tagTeacher:
		return fmt.Errorf("%w: teacher games read as positions", store.ErrCorrupt) // a caller's mistake: see nextTeacher
	case tag == tagPosition || tag == tagLedger:
		return fmt.Errorf("%w: record type %d in a teacher shard", store.ErrCorrupt, tag)
	}
	return fmt.Errorf("%w: record type %d is not readable by this program (format %d)", store.ErrSchemaVersion, tag, Version)
}

// nextTeacher returns the next game of a teacher shard, or nil after the
// last one once the footer and the CRC have been checked. The game is the
// caller's.
func (r *Reader) NextTeacher() (*store.TeacherGame, error) {
	for !r.done {
		tag, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagTeacher:
			if r.Header.Kind != KindTeacher {
				return nil, r.unexpected(tag)
			}
			return r.teacherGame()
		case tagFooter:
			if err := r.readFooter(); err != nil {
				return nil, err
			}
		default:
			return nil, r.unexpected(tag)
		}
	}
	return nil, nil
}

// teacherGame decodes a teacher game record (after its tag), checking it
// and its order, and counts it with its result.
func (r *Reader) teacherGame() (*store.TeacherGame, error) {
	var v [4]int64
	for i := range 3 {
		var err error
		if v[i], err = r.count(1 << 31); err != nil {
			return nil, err
		}
	}
	w, err := r.byte()
	if err != nil {
		return nil, err
	}
	row := TeacherRow{Gen: int(v[0]), Game: int(v[1]), Book: int(v[2]), Winner: int(w)}
	for _, dst := range []*[]byte{&row.Moves, &row.Teacher, &row.Plies} {
		if *dst, err = r.bytes(nil); err != nil {
			return nil, err
		}
	}
	g, err := row.Decode()
	if err != nil {
		return nil, err
	}
	at := [2]int{g.Gen, g.Game}
	if r.started && (at[0] < r.lastTG[0] || at[0] == r.lastTG[0] && at[1] <= r.lastTG[1]) {
		return nil, fmt.Errorf("%w: teacher game %d/%d out of order", store.ErrCorrupt, g.Gen, g.Game)
	}
	r.started, r.lastTG = true, at
	r.counted.Games++
	switch g.Winner {
	case gomoku.Black:
		r.counted.Black++
	case gomoku.White:
		r.counted.White++
	default:
		r.counted.Draws++
	}
	return &g, nil
}

// position decodes the next position record. Hot (every position of every
// merge, prune, stats and conclude pass) and kept in one piece: the header,
// the move rows and the order check share the reader's cursor. Guarded by
// BenchmarkMerge and BenchmarkPrune.
func (r *Reader) position() (*Position, error) {
	p := &r.pos
	if err := r.fill(8); err != nil {
		return nil, err
	}
	p.ID = int64(binary.LittleEndian.Uint64(r.buf[r.r:]))
	r.r += 8
	born, err := r.count(1 << 62)
	if err != nil {
		return nil, err
	}
	p.Born = born
	p.hasEnc, p.hasKey = false, false
	if r.SkipKeys {
		err = r.skipKey()
	} else {
		p.enc, err = r.rawKey(p.enc)
		p.hasEnc = true
	}
	if err != nil {
		return nil, err
	}
	n, err := r.count(1 << 16)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: position without moves", store.ErrCorrupt)
	}
	p.Moves = p.Moves[:0]
	for i := range n {
		if err := r.fill(3); err != nil {
			return nil, err
		}
		m := MoveRow{Move: canon.Move{X: int8(r.buf[r.r]), Y: int8(r.buf[r.r+1])}, Blacklisted: r.buf[r.r+2]&flagBlacklisted != 0}
		r.r += 3
		if m.WSum, err = r.varint(); err != nil {
			return nil, err
		}
		if m.Games, err = r.count(1 << 62); err != nil {
			return nil, err
		}
		if m.WSum > m.Games || -m.WSum > m.Games || i > 0 && store.CompareMoves(p.Moves[i-1].Move, m.Move) >= 0 {
			return nil, fmt.Errorf("%w: move row %d of position id %d", store.ErrCorrupt, i, p.ID)
		}
		p.Moves = append(p.Moves, m)
	}
	if r.SkipKeys {
		if r.started && r.last.ID > p.ID {
			return nil, fmt.Errorf("%w: position id %d out of order", store.ErrCorrupt, p.ID)
		}
		r.started, r.last.ID = true, p.ID
	} else {
		if r.Strict && canon.ID(string(p.Text())) != p.ID || r.started && ComparePositions(&r.last, p) >= 0 {
			return nil, fmt.Errorf("%w: position %q has a wrong id or is out of order", store.ErrCorrupt, p.Text())
		}
		r.started = true
		r.last.CopyKey(p)
	}
	r.counted.Positions++
	r.counted.Rows += n
	return p, nil
}

func (r *Reader) ledgerEntry() error {
	id, err := r.bytes(nil)
	if err != nil {
		return err
	}
	seal, err := r.bytes(nil)
	if err != nil {
		return err
	}
	games, err := r.count(1 << 62)
	if err != nil {
		return err
	}
	r.Ledger = append(r.Ledger, LedgerEntry{string(id), string(seal), games})
	return nil
}

func (r *Reader) readFooter() error {
	var v [6]int64
	for i := range v {
		var err error
		if v[i], err = r.count(1 << 62); err != nil {
			return err
		}
	}
	r.Footer = Footer{Counts{v[0], v[1], v[2], v[3]}, v[4], v[5]}
	switch {
	case r.r != r.w || r.loaded != r.crcEnd:
		return fmt.Errorf("%w: data after the footer", store.ErrCorrupt)
	case r.Footer.Positions != r.counted.Positions || r.Footer.Rows != r.counted.Rows:
		return fmt.Errorf("%w: footer counts %d positions and %d rows, file holds %d and %d",
			store.ErrCorrupt, r.Footer.Positions, r.Footer.Rows, r.counted.Positions, r.counted.Rows)
	case r.Footer.Black+r.Footer.White+r.Footer.Draws != r.Footer.Games:
		return fmt.Errorf("%w: footer results do not add up to its games", store.ErrCorrupt)
	case r.Header.Kind == KindTeacher && r.Footer.Counts != r.counted.Counts:
		return fmt.Errorf("%w: footer counts %d teacher games (%d, %d, %d), file holds %d (%d, %d, %d)", store.ErrCorrupt,
			r.Footer.Games, r.Footer.Black, r.Footer.White, r.Footer.Draws, r.counted.Games, r.counted.Black, r.counted.White, r.counted.Draws)
	}
	var sum [4]byte
	if _, err := r.f.ReadAt(sum[:], r.crcEnd); err != nil {
		return fmt.Errorf("%w: %v", store.ErrCorrupt, err)
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != r.crc {
		return fmt.Errorf("%w: checksum %08x, content gives %08x", store.ErrCorrupt, got, r.crc)
	}
	r.done = true
	return nil
}

// seal is the run's seal; valid once next has returned nil.
func (r *Reader) Seal() string { return sealOf(r.crc, r.size) }

// Size is the run's size in bytes, its seal included.
func (r *Reader) Size() int64 { return r.size }

// verifyRun reads the whole run at path, checking everything, and returns
// its header, footer, ledger and seal.
func Verify(path string) (Header, Footer, []LedgerEntry, string, error) {
	r, err := Open(path)
	if err != nil {
		return Header{}, Footer{}, nil, "", err
	}
	defer r.Close()
	for {
		var more bool
		if r.Header.Kind == KindTeacher {
			g, err := r.NextTeacher()
			if err != nil {
				return r.Header, Footer{}, nil, "", err
			}
			more = g != nil
		} else {
			p, err := r.Next()
			if err != nil {
				return r.Header, Footer{}, nil, "", err
			}
			more = p != nil
		}
		if !more {
			return r.Header, r.Footer, r.Ledger, r.Seal(), nil
		}
	}
}
