package store

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"ocvist/canon"
	"ocvist/gomoku"
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
	runMagic    = "OCVSRUN\x00"
	runTrailer  = "OCVSEAL\n"
	runVersion  = 2 // the newest format, which this program reads with 1
	runSealSize = 4 + len(runTrailer)

	kindShard   = 'S'
	kindExport  = 'E'
	kindYoung   = 'Y'
	kindTeacher = 'T'

	tagFooter   = 0
	tagPosition = 1
	tagLedger   = 2
	tagTeacher  = 3

	flagBlacklisted = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// moveRow is one move's statistics inside a position.
type moveRow struct {
	m     canon.Move
	bl    bool
	wsum  int64
	games int64
}

// mean is the move's mean weight.
func (m moveRow) mean() float64 { return float64(m.wsum) / float64(m.games) }

// position is one position's statistics as runs and merges carry them.
// Its key is known as text, in its run encoding, or both: reading and
// writing runs passes the encoding through, and the text is decoded only
// where needed (ids equal, rows for the moves table, export).
type position struct {
	id             int64
	key            []byte // text, valid when hasKey
	enc            []byte // run encoding (appendKey), valid when hasEnc
	hasKey, hasEnc bool
	born           int64 // database game count when first seen; 0: not yet known
	moves          []moveRow
}

func (p *position) setKey(k []byte) {
	p.key, p.hasKey, p.hasEnc = append(p.key[:0], k...), true, false
}

// text is the key as text (the position must have its key).
func (p *position) text() []byte {
	if !p.hasKey {
		p.key, p.hasKey = decodeKey(p.key[:0], p.enc), true
	}
	return p.key
}

// encoded is the key in its run encoding.
func (p *position) encoded() []byte {
	if !p.hasEnc {
		p.enc, p.hasEnc = appendKey(p.enc[:0], p.key), true
	}
	return p.enc
}

// copyKey makes p's key q's.
func (p *position) copyKey(q *position) {
	p.id, p.hasKey, p.hasEnc = q.id, q.hasKey, q.hasEnc
	if q.hasKey {
		p.key = append(p.key[:0], q.key...)
	}
	if q.hasEnc {
		p.enc = append(p.enc[:0], q.enc...)
	}
}

// cmpPos orders positions by (id, key text); equal encodings are equal
// keys, so the text is needed only for different keys of one id.
func cmpPos(a, b *position) int {
	if c := cmp.Compare(a.id, b.id); c != 0 {
		return c
	}
	if a.hasEnc && b.hasEnc && bytes.Equal(a.enc, b.enc) {
		return 0
	}
	return bytes.Compare(a.text(), b.text())
}

// games is the number of games that reached the position: each plays
// exactly one recorded move there.
func (p *position) games() int64 {
	var n int64
	for _, m := range p.moves {
		n += m.games
	}
	return n
}

func (p *position) blacklisted() bool {
	for _, m := range p.moves {
		if m.bl {
			return true
		}
	}
	return false
}

// totals counts games by result.
type totals struct {
	games, black, white, draws int64
}

func (t *totals) add(u totals) {
	t.games += u.games
	t.black += u.black
	t.white += u.white
	t.draws += u.draws
}

// runHeader is what a run says about itself.
type runHeader struct {
	version byte // the format (formatOf(kind) when written)
	kind    byte
	cfg     Config
	id      string
	meta    map[string]string
}

// runFooter is a run's closing counts.
type runFooter struct {
	totals
	positions, rows int64
}

// ledgerEntry is a merged source: a shard id and its seal.
type ledgerEntry struct {
	id, seal string
	games    int64
}

// runWriter writes a run to a sink and seals it.
type runWriter struct {
	out     runSink
	path    string // for messages
	crc     uint32
	size    int64
	buf     []byte
	last    position // order check
	lastTG  [2]int   // (gen, game) of the last teacher game
	started bool
	foot    runFooter
	kind    byte
}

// runSink is where a run is written: a file (runFile) or a young run's
// rows in a database's transaction (youngWriter).
type runSink interface {
	io.Writer
	publish() error // after the trailer: make the run durable and visible
	discard()       // drop an unfinished run
}

// tempRunName is the name a run has while it is written.
func tempRunName(final string) string {
	return filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".tmp")
}

// createRun starts the run that Seal will publish as path; it never
// overwrites an existing file.
func createRun(path string, h runHeader) (*runWriter, error) {
	tmp := tempRunName(path)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return startRun(&runFile{f: f, bw: bufio.NewWriterSize(f, 1<<18), tmp: tmp, path: path}, path, h)
}

// runFile writes a run under a temporary name and publishes it by a link.
type runFile struct {
	f         *os.File // nil once closed
	bw        *bufio.Writer
	tmp, path string
}

func (r *runFile) Write(p []byte) (int, error) { return r.bw.Write(p) }

// publish syncs the file and links it to its final name, which must not
// exist.
func (r *runFile) publish() error {
	err := r.bw.Flush()
	if err == nil {
		err = r.f.Sync()
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	r.f = nil
	if err == nil {
		// Link, not rename: it fails if the final name exists.
		err = os.Link(r.tmp, r.path)
	}
	if err == nil {
		err = syncFile(filepath.Dir(r.path))
	}
	os.Remove(r.tmp)
	return err
}

// discard closes and removes the temporary file.
func (r *runFile) discard() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
	os.Remove(r.tmp)
}

// startRun writes the header of a run to out.
func startRun(out runSink, path string, h runHeader) (*runWriter, error) {
	w := &runWriter{out: out, path: path, kind: h.kind}
	meta, err := json.Marshal(h.meta)
	if err != nil {
		w.abort()
		return nil, err
	}
	b := append([]byte(runMagic), formatOf(h.kind), h.kind, byte(h.cfg.Rule))
	b = binary.AppendUvarint(b, uint64(h.cfg.KeyVersion))
	b = binary.AppendUvarint(b, uint64(h.cfg.BoardSize))
	b = appendBytes(b, []byte(h.id))
	b = appendBytes(b, meta)
	if err := w.write(b); err != nil {
		w.abort()
		return nil, err
	}
	return w, nil
}

// formatOf is the format a run of the kind is written in: 2 for a teacher
// shard, which needs it; 1, as before format 2, for every other kind.
func formatOf(kind byte) byte {
	if kind == kindTeacher {
		return 2
	}
	return 1
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func (w *runWriter) write(b []byte) error {
	w.crc = crc32.Update(w.crc, castagnoli, b)
	w.size += int64(len(b))
	_, err := w.out.Write(b)
	return err
}

// position appends p, which must follow the previous position in order
// and have its moves sorted.
func (w *runWriter) position(p *position) error {
	if w.started && cmpPos(&w.last, p) >= 0 {
		return fmt.Errorf("run %s: position %q out of order", w.path, p.text())
	}
	w.started = true
	w.last.copyKey(p)
	b := append(w.buf[:0], tagPosition)
	b = binary.LittleEndian.AppendUint64(b, uint64(p.id))
	b = binary.AppendUvarint(b, uint64(p.born))
	b = append(b, p.encoded()...)
	b = binary.AppendUvarint(b, uint64(len(p.moves)))
	for _, m := range p.moves {
		var fl byte
		if m.bl {
			fl = flagBlacklisted
		}
		b = append(b, byte(m.m.X), byte(m.m.Y), fl)
		b = binary.AppendVarint(b, m.wsum)
		b = binary.AppendUvarint(b, uint64(m.games))
	}
	w.buf = b
	w.foot.positions++
	w.foot.rows += int64(len(p.moves))
	return w.write(b)
}

// teacher appends a teacher game (a teacher shard only), which must follow
// the previous one in (Gen, Game) order.
func (w *runWriter) teacher(g *TeacherGame) error {
	if err := g.check(); err != nil {
		return err
	}
	switch at := [2]int{g.Gen, g.Game}; {
	case w.kind != kindTeacher:
		return fmt.Errorf("run %s: a teacher game in a run of kind %q", w.path, w.kind)
	case w.started && (at[0] < w.lastTG[0] || at[0] == w.lastTG[0] && at[1] <= w.lastTG[1]):
		return fmt.Errorf("run %s: teacher game %d/%d out of order", w.path, g.Gen, g.Game)
	}
	w.started, w.lastTG = true, [2]int{g.Gen, g.Game}
	b := append(w.buf[:0], tagTeacher)
	b = binary.AppendUvarint(b, uint64(g.Gen))
	b = binary.AppendUvarint(b, uint64(g.Game))
	b = binary.AppendUvarint(b, uint64(g.Book))
	b = append(b, byte(g.Winner))
	b = appendBytes(b, pointBytes(g.Moves))
	b = appendBytes(b, pointBytes(g.Teacher))
	b = appendBytes(b, appendPlies(nil, g.Plies))
	w.buf = b
	return w.write(b)
}

// ledger records a shard whose games the run contains.
func (w *runWriter) ledger(e ledgerEntry) error {
	b := append(w.buf[:0], tagLedger)
	b = appendBytes(b, []byte(e.id))
	b = appendBytes(b, []byte(e.seal))
	b = binary.AppendUvarint(b, uint64(e.games))
	w.buf = b
	return w.write(b)
}

// seal writes the footer, the CRC and the trailer and publishes the run
// (a file: synced and renamed to its final name, which must not exist). It
// returns the run's seal and size. On error the run is discarded.
func (w *runWriter) seal(t totals) (string, int64, error) {
	w.foot.totals = t
	b := append(w.buf[:0], tagFooter)
	for _, v := range []int64{t.games, t.black, t.white, t.draws, w.foot.positions, w.foot.rows} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	err := w.write(b)
	if err == nil {
		b = binary.LittleEndian.AppendUint32(b[:0], w.crc)
		b = append(b, runTrailer...)
		_, err = w.out.Write(b)
		w.size += int64(len(b))
	}
	if err == nil {
		err = w.out.publish()
	}
	if err != nil {
		w.abort()
		return "", 0, fmt.Errorf("seal run %s: %w", w.path, err)
	}
	return sealOf(w.crc, w.size), w.size, nil
}

func sealOf(crc uint32, size int64) string { return fmt.Sprintf("%08x-%d", crc, size) }

// abort drops the unfinished run (a file: closed and removed).
func (w *runWriter) abort() { w.out.discard() }

// runReader reads a sealed run sequentially, checking order, counts and
// CRC as it goes, from a file or a young run's rows (any io.ReaderAt).
type runReader struct {
	f        io.ReaderAt
	closer   io.Closer // nil: nothing to close
	path     string    // the file, or the young run's name, for messages
	h        runHeader
	size     int64 // file size
	crcEnd   int64 // bytes covered by the CRC
	loaded   int64 // file bytes read into buf so far
	crc      uint32
	buf      []byte
	r, w     int
	pos      position
	started  bool
	foot     runFooter
	counted  runFooter
	ledger   []ledgerEntry
	done     bool
	last     position // order check
	lastTG   [2]int   // (gen, game) of the last teacher game
	strict   bool     // also check every position's id against its key
	skipKeys bool     // leave keys unread (ids and counts only); order checked by id
	// keep, when set, passes over the positions whose id it rejects
	// without decoding them.
	keep func(id int64) bool
}

// isRunFile reports whether the file at path starts with the run magic.
func isRunFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [len(runMagic)]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == runMagic
}

// openRun opens the run at path and reads its header. A file without the
// trailer gives ErrUnpublished, one without the magic ErrNotOcvist.
func openRun(path string) (*runReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = fmt.Errorf("%w: is a directory", ErrNotOcvist)
	}
	var r *runReader
	if err == nil {
		r, err = newRunReader(f, fi.Size(), path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// newRunReader reads the header of the size bytes of a run in src.
func newRunReader(src io.ReaderAt, size int64, path string) (*runReader, error) {
	r := &runReader{f: src, path: path, size: size, buf: make([]byte, 1<<16)}
	var magic [len(runMagic)]byte
	if n, _ := src.ReadAt(magic[:], 0); n < len(magic) || string(magic[:]) != runMagic {
		return nil, fmt.Errorf("%w: no run or database header", ErrNotOcvist)
	}
	var trailer [len(runTrailer)]byte
	if r.size < int64(len(runMagic)+runSealSize) {
		return nil, fmt.Errorf("%w: run file of %d bytes, not sealed", ErrUnpublished, r.size)
	}
	if _, err := src.ReadAt(trailer[:], r.size-int64(len(trailer))); err != nil {
		return nil, err
	}
	if string(trailer[:]) != runTrailer {
		return nil, fmt.Errorf("%w: no seal at the end (still being written, or cut short)", ErrUnpublished)
	}
	r.crcEnd = r.size - int64(runSealSize)
	if err := r.header(); err != nil {
		return nil, err
	}
	return r, nil
}

// close closes the run's file, if it has one.
func (r *runReader) close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// fill makes at least n unread bytes available, fewer only at the end of
// the CRC-covered part of the file.
func (r *runReader) fill(n int) error {
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
			return fmt.Errorf("%w: read: %v", ErrCorrupt, err)
		}
	}
	if r.w-r.r < n {
		return fmt.Errorf("%w: run cut short", ErrCorrupt)
	}
	return nil
}

func (r *runReader) byte() (byte, error) {
	if err := r.fill(1); err != nil {
		return 0, err
	}
	r.r++
	return r.buf[r.r-1], nil
}

func (r *runReader) uvarint() (uint64, error) {
	_ = r.fill(binary.MaxVarintLen64) // may end early; Uvarint tells
	v, n := binary.Uvarint(r.buf[r.r:r.w])
	if n <= 0 {
		return 0, fmt.Errorf("%w: bad number", ErrCorrupt)
	}
	r.r += n
	return v, nil
}

func (r *runReader) varint() (int64, error) {
	_ = r.fill(binary.MaxVarintLen64)
	v, n := binary.Varint(r.buf[r.r:r.w])
	if n <= 0 {
		return 0, fmt.Errorf("%w: bad number", ErrCorrupt)
	}
	r.r += n
	return v, nil
}

// count reads a non-negative count of at most max.
func (r *runReader) count(max uint64) (int64, error) {
	v, err := r.uvarint()
	if err == nil && v > max {
		err = fmt.Errorf("%w: count %d out of range", ErrCorrupt, v)
	}
	return int64(v), err
}

// bytes reads a length-prefixed byte string into dst.
func (r *runReader) bytes(dst []byte) ([]byte, error) {
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

// Key encodings of a position record.
const (
	keyText   = 0
	keyPacked = 1
)

// appendKey appends key in the record's key encoding: packed by canon
// when it packs, as text otherwise.
func appendKey(b, key []byte) []byte {
	if p, ok := canon.AppendPacked(append(b, keyPacked), key); ok {
		return p
	}
	return appendBytes(append(b, keyText), key)
}

// rawKey reads a key's run encoding into dst, checking it.
func (r *runReader) rawKey(dst []byte) ([]byte, error) {
	enc, err := r.byte()
	if err != nil {
		return nil, err
	}
	dst = append(dst[:0], enc)
	switch enc {
	case keyText:
		n, err := r.count(1 << 20)
		if err != nil {
			return nil, err
		}
		if err := r.fill(int(n)); err != nil {
			return nil, err
		}
		dst = binary.AppendUvarint(dst, uint64(n))
		dst = append(dst, r.buf[r.r:r.r+int(n)]...)
		r.r += int(n)
		return dst, nil
	case keyPacked:
		n, err := r.packedLen()
		if err != nil {
			return nil, err
		}
		dst = append(dst, r.buf[r.r:r.r+n]...)
		r.r += n
		return dst, nil
	}
	return nil, fmt.Errorf("%w: key encoding %d", ErrCorrupt, enc)
}

// skipPosition passes over a position record (after its tag).
func (r *runReader) skipPosition() error {
	r.r += 8
	if _, err := r.uvarint(); err != nil {
		return err
	}
	if err := r.skipKey(); err != nil {
		return err
	}
	n, err := r.count(1 << 16)
	if err != nil {
		return err
	}
	for range n {
		if err := r.fill(3); err != nil {
			return err
		}
		r.r += 3
		if _, err := r.varint(); err != nil {
			return err
		}
		if _, err := r.uvarint(); err != nil {
			return err
		}
	}
	r.counted.positions++
	r.counted.rows += n
	return nil
}

// skipKey passes over a key.
func (r *runReader) skipKey() error {
	enc, err := r.byte()
	if err != nil {
		return err
	}
	var n int
	if enc == keyText {
		v, err := r.count(1 << 20)
		if err != nil {
			return err
		}
		n = int(v)
	} else if enc == keyPacked {
		if n, err = r.packedLen(); err != nil {
			return err
		}
	} else {
		return fmt.Errorf("%w: key encoding %d", ErrCorrupt, enc)
	}
	if err := r.fill(n); err != nil {
		return err
	}
	r.r += n
	return nil
}

// packedLen is the length of the packed key at the reader's position,
// checked by canon and buffered.
func (r *runReader) packedLen() (int, error) {
	if err := r.fill(1); err != nil {
		return 0, err
	}
	_ = r.fill(1 + 2*int(r.buf[r.r])) // stones take one or two bytes; canon checks
	n, err := canon.PackedLen(r.buf[r.r:r.w])
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return n, nil
}

// decodeKey appends the text of a key's run encoding (checked by rawKey
// or made by appendKey) to dst.
func decodeKey(dst, enc []byte) []byte {
	if enc[0] == keyText {
		_, k := binary.Uvarint(enc[1:])
		return append(dst, enc[1+k:]...)
	}
	return canon.AppendUnpacked(dst, enc[1:])
}

func (r *runReader) header() error {
	if err := r.fill(len(runMagic) + 3); err != nil {
		return err
	}
	r.r += len(runMagic)
	if v := r.buf[r.r]; v < 1 || v > runVersion {
		return fmt.Errorf("%w: run format %d, this program reads 1 to %d", ErrSchemaVersion, v, runVersion)
	}
	r.h.version, r.h.kind, r.h.cfg.Rule = r.buf[r.r], r.buf[r.r+1], gomoku.Rule(r.buf[r.r+2])
	r.r += 3
	kv, err := r.count(1 << 16)
	if err != nil {
		return err
	}
	bs, err := r.count(1 << 16)
	if err != nil {
		return err
	}
	r.h.cfg.KeyVersion, r.h.cfg.BoardSize = int(kv), int(bs)
	id, err := r.bytes(nil)
	if err != nil {
		return err
	}
	meta, err := r.bytes(nil)
	if err != nil {
		return err
	}
	r.h.id = string(id)
	if err := json.Unmarshal(meta, &r.h.meta); err != nil {
		return fmt.Errorf("%w: run meta: %v", ErrCorrupt, err)
	}
	switch {
	case r.h.kind != kindShard && r.h.kind != kindExport && r.h.kind != kindYoung && r.h.kind != kindTeacher:
		return fmt.Errorf("%w: run kind %q", ErrCorrupt, r.h.kind)
	case r.h.kind == kindTeacher && r.h.version < 2:
		return fmt.Errorf("%w: a teacher shard in run format %d (teacher shards are format 2)", ErrCorrupt, r.h.version)
	case r.h.id == "":
		return fmt.Errorf("%w: run without id", ErrCorrupt)
	}
	return r.h.cfg.Validate()
}

// next returns the next position, or nil after the last one once the
// footer and the CRC have been checked. The position and its slices are
// valid until the next call.
func (r *runReader) next() (*position, error) {
	for !r.done {
		tag, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagPosition:
			if r.keep != nil {
				if err := r.fill(8); err != nil {
					return nil, err
				}
				if id := int64(binary.LittleEndian.Uint64(r.buf[r.r:])); !r.keep(id) {
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
			if err := r.footer(); err != nil {
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
func (r *runReader) unexpected(tag byte) error {
	switch {
	case tag == tagTeacher && r.h.kind != kindTeacher:
		return fmt.Errorf("%w: a teacher game in a run of kind %q", ErrCorrupt, r.h.kind)
	case tag == tagTeacher:
		return fmt.Errorf("%w: teacher games read as positions", ErrCorrupt) // a caller's mistake: see nextTeacher
	case tag == tagPosition || tag == tagLedger:
		return fmt.Errorf("%w: record type %d in a teacher shard", ErrCorrupt, tag)
	}
	return fmt.Errorf("%w: record type %d is not readable by this program (format %d)", ErrSchemaVersion, tag, runVersion)
}

// nextTeacher returns the next game of a teacher shard, or nil after the
// last one once the footer and the CRC have been checked. The game is the
// caller's.
func (r *runReader) nextTeacher() (*TeacherGame, error) {
	for !r.done {
		tag, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagTeacher:
			if r.h.kind != kindTeacher {
				return nil, r.unexpected(tag)
			}
			return r.teacherGame()
		case tagFooter:
			if err := r.footer(); err != nil {
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
func (r *runReader) teacherGame() (*TeacherGame, error) {
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
	row := teacherRow{gen: int(v[0]), game: int(v[1]), book: int(v[2]), winner: int(w)}
	for _, dst := range []*[]byte{&row.moves, &row.teacher, &row.plies} {
		if *dst, err = r.bytes(nil); err != nil {
			return nil, err
		}
	}
	g, err := row.decode()
	if err != nil {
		return nil, err
	}
	at := [2]int{g.Gen, g.Game}
	if r.started && (at[0] < r.lastTG[0] || at[0] == r.lastTG[0] && at[1] <= r.lastTG[1]) {
		return nil, fmt.Errorf("%w: teacher game %d/%d out of order", ErrCorrupt, g.Gen, g.Game)
	}
	r.started, r.lastTG = true, at
	r.counted.games++
	switch g.Winner {
	case gomoku.Black:
		r.counted.black++
	case gomoku.White:
		r.counted.white++
	default:
		r.counted.draws++
	}
	return &g, nil
}

// position decodes the next position record. Hot (every position of every
// merge, prune, stats and conclude pass) and kept in one piece: the header,
// the move rows and the order check share the reader's cursor. Guarded by
// BenchmarkMerge and BenchmarkPrune.
func (r *runReader) position() (*position, error) {
	p := &r.pos
	if err := r.fill(8); err != nil {
		return nil, err
	}
	p.id = int64(binary.LittleEndian.Uint64(r.buf[r.r:]))
	r.r += 8
	born, err := r.count(1 << 62)
	if err != nil {
		return nil, err
	}
	p.born = born
	p.hasEnc, p.hasKey = false, false
	if r.skipKeys {
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
		return nil, fmt.Errorf("%w: position without moves", ErrCorrupt)
	}
	p.moves = p.moves[:0]
	for i := range n {
		if err := r.fill(3); err != nil {
			return nil, err
		}
		m := moveRow{m: canon.Move{X: int8(r.buf[r.r]), Y: int8(r.buf[r.r+1])}, bl: r.buf[r.r+2]&flagBlacklisted != 0}
		r.r += 3
		if m.wsum, err = r.varint(); err != nil {
			return nil, err
		}
		if m.games, err = r.count(1 << 62); err != nil {
			return nil, err
		}
		if m.wsum > m.games || -m.wsum > m.games || i > 0 && cmpMove(p.moves[i-1].m, m.m) >= 0 {
			return nil, fmt.Errorf("%w: move row %d of position id %d", ErrCorrupt, i, p.id)
		}
		p.moves = append(p.moves, m)
	}
	if r.skipKeys {
		if r.started && r.last.id > p.id {
			return nil, fmt.Errorf("%w: position id %d out of order", ErrCorrupt, p.id)
		}
		r.started, r.last.id = true, p.id
	} else {
		if r.strict && canon.ID(string(p.text())) != p.id || r.started && cmpPos(&r.last, p) >= 0 {
			return nil, fmt.Errorf("%w: position %q has a wrong id or is out of order", ErrCorrupt, p.text())
		}
		r.started = true
		r.last.copyKey(p)
	}
	r.counted.positions++
	r.counted.rows += n
	return p, nil
}

func (r *runReader) ledgerEntry() error {
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
	r.ledger = append(r.ledger, ledgerEntry{string(id), string(seal), games})
	return nil
}

func (r *runReader) footer() error {
	var v [6]int64
	for i := range v {
		var err error
		if v[i], err = r.count(1 << 62); err != nil {
			return err
		}
	}
	r.foot = runFooter{totals{v[0], v[1], v[2], v[3]}, v[4], v[5]}
	switch {
	case r.r != r.w || r.loaded != r.crcEnd:
		return fmt.Errorf("%w: data after the footer", ErrCorrupt)
	case r.foot.positions != r.counted.positions || r.foot.rows != r.counted.rows:
		return fmt.Errorf("%w: footer counts %d positions and %d rows, file holds %d and %d",
			ErrCorrupt, r.foot.positions, r.foot.rows, r.counted.positions, r.counted.rows)
	case r.foot.black+r.foot.white+r.foot.draws != r.foot.games:
		return fmt.Errorf("%w: footer results do not add up to its games", ErrCorrupt)
	case r.h.kind == kindTeacher && r.foot.totals != r.counted.totals:
		return fmt.Errorf("%w: footer counts %d teacher games (%d, %d, %d), file holds %d (%d, %d, %d)", ErrCorrupt,
			r.foot.games, r.foot.black, r.foot.white, r.foot.draws, r.counted.games, r.counted.black, r.counted.white, r.counted.draws)
	}
	var sum [4]byte
	if _, err := r.f.ReadAt(sum[:], r.crcEnd); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != r.crc {
		return fmt.Errorf("%w: checksum %08x, content gives %08x", ErrCorrupt, got, r.crc)
	}
	r.done = true
	return nil
}

// seal is the run's seal; valid once next has returned nil.
func (r *runReader) seal() string { return sealOf(r.crc, r.size) }

// verifyRun reads the whole run at path, checking everything, and returns
// its header, footer, ledger and seal.
func verifyRun(path string) (runHeader, runFooter, []ledgerEntry, string, error) {
	r, err := openRun(path)
	if err != nil {
		return runHeader{}, runFooter{}, nil, "", err
	}
	defer r.close()
	for {
		var more bool
		if r.h.kind == kindTeacher {
			g, err := r.nextTeacher()
			if err != nil {
				return r.h, runFooter{}, nil, "", err
			}
			more = g != nil
		} else {
			p, err := r.next()
			if err != nil {
				return r.h, runFooter{}, nil, "", err
			}
			more = p != nil
		}
		if !more {
			return r.h, r.foot, r.ledger, r.seal(), nil
		}
	}
}
