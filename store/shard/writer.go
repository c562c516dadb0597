package shard

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"ocvist/store"
)

// runWriter writes a run to a sink and seals it.
type Writer struct {
	out     Sink
	path    string // for messages
	crc     uint32
	size    int64
	buf     []byte
	last    Position // order check
	lastTG  [2]int   // (gen, game) of the last teacher game
	started bool
	foot    Footer
	kind    byte
}

// runSink is where a run is written: a file (runFile) or a young run's
// rows in a database's transaction (youngWriter).
type Sink interface {
	io.Writer
	Publish() error // after the trailer: make the run durable and visible
	Discard()       // drop an unfinished run
}

// tempRunName is the name a run has while it is written.
func tempRunName(final string) string {
	return filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".tmp")
}

// createRun starts the run that Seal will publish as path; it never
// overwrites an existing file.
func Create(path string, h Header) (*Writer, error) {
	tmp := tempRunName(path)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return Start(&runFile{f: f, bw: bufio.NewWriterSize(f, 1<<18), tmp: tmp, path: path}, path, h)
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
func (r *runFile) Publish() error {
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
func (r *runFile) Discard() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
	os.Remove(r.tmp)
}

// startRun writes the header of a run to out.
func Start(out Sink, path string, h Header) (*Writer, error) {
	w := &Writer{out: out, path: path, kind: h.Kind}
	meta, err := json.Marshal(h.Meta)
	if err != nil {
		w.Abort()
		return nil, err
	}
	b := append([]byte(Magic), formatOf(h.Kind), h.Kind, byte(h.Config.Rule))
	b = binary.AppendUvarint(b, uint64(h.Config.KeyVersion))
	b = binary.AppendUvarint(b, uint64(h.Config.BoardSize))
	b = appendBytes(b, []byte(h.ID))
	b = appendBytes(b, meta)
	if err := w.write(b); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// formatOf is the format a run of the kind is written in: 2 for a teacher
// shard, which needs it; 1, as before format 2, for every other kind.
func formatOf(kind byte) byte {
	if kind == KindTeacher {
		return 2
	}
	return 1
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func (w *Writer) write(b []byte) error {
	w.crc = crc32.Update(w.crc, castagnoli, b)
	w.size += int64(len(b))
	_, err := w.out.Write(b)
	return err
}

// position appends p, which must follow the previous position in order
// and have its moves sorted.
func (w *Writer) Position(p *Position) error {
	if w.started && ComparePositions(&w.last, p) >= 0 {
		return fmt.Errorf("run %s: position %q out of order", w.path, p.Text())
	}
	w.started = true
	w.last.CopyKey(p)
	b := append(w.buf[:0], tagPosition)
	b = binary.LittleEndian.AppendUint64(b, uint64(p.ID))
	b = binary.AppendUvarint(b, uint64(p.Born))
	b = append(b, p.Encoded()...)
	b = binary.AppendUvarint(b, uint64(len(p.Moves)))
	for _, m := range p.Moves {
		var fl byte
		if m.Blacklisted {
			fl = flagBlacklisted
		}
		b = append(b, byte(m.Move.X), byte(m.Move.Y), fl)
		b = binary.AppendVarint(b, m.WSum)
		b = binary.AppendUvarint(b, uint64(m.Games))
	}
	w.buf = b
	w.foot.Positions++
	w.foot.Rows += int64(len(p.Moves))
	return w.write(b)
}

// teacher appends a teacher game (a teacher shard only), which must follow
// the previous one in (Gen, Game) order.
func (w *Writer) Teacher(g *store.TeacherGame) error {
	if err := g.Validate(); err != nil {
		return err
	}
	switch at := [2]int{g.Gen, g.Game}; {
	case w.kind != KindTeacher:
		return fmt.Errorf("run %s: a teacher game in a run of kind %q", w.path, w.kind)
	case w.started && (at[0] < w.lastTG[0] || at[0] == w.lastTG[0] && at[1] <= w.lastTG[1]):
		return fmt.Errorf("run %s: teacher game %d/%d out of order", w.path, g.Gen, g.Game)
	}
	w.started, w.lastTG = true, [2]int{g.Gen, g.Game}
	w.buf = AppendTeacher(w.buf[:0], g)
	return w.write(w.buf)
}

// appendTeacher appends g's teacher game record (record type 3, its tag
// first) to b, unchecked.
func AppendTeacher(b []byte, g *store.TeacherGame) []byte {
	b = append(b, tagTeacher)
	b = binary.AppendUvarint(b, uint64(g.Gen))
	b = binary.AppendUvarint(b, uint64(g.Game))
	b = binary.AppendUvarint(b, uint64(g.Book))
	b = append(b, byte(g.Winner))
	b = appendBytes(b, PointBytes(g.Moves))
	b = appendBytes(b, PointBytes(g.Teacher))
	return appendBytes(b, AppendPlies(nil, g.Plies))
}

// raw appends b to the run as it is, inside the CRC and uncounted: a
// record the writer does not make, such as one of a newer format or of
// another kind of run, for tests that check a reader refuses it.
func (w *Writer) Raw(b []byte) error { return w.write(b) }

// ledger records a shard whose games the run contains.
func (w *Writer) Ledger(e LedgerEntry) error {
	b := append(w.buf[:0], tagLedger)
	b = appendBytes(b, []byte(e.ID))
	b = appendBytes(b, []byte(e.Seal))
	b = binary.AppendUvarint(b, uint64(e.Games))
	w.buf = b
	return w.write(b)
}

// seal writes the footer, the CRC and the trailer and publishes the run
// (a file: synced and renamed to its final name, which must not exist). It
// returns the run's seal and size. On error the run is discarded.
func (w *Writer) Seal(t Counts) (string, int64, error) {
	w.foot.Counts = t
	b := append(w.buf[:0], tagFooter)
	for _, v := range []int64{t.Games, t.Black, t.White, t.Draws, w.foot.Positions, w.foot.Rows} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	err := w.write(b)
	if err == nil {
		b = binary.LittleEndian.AppendUint32(b[:0], w.crc)
		b = append(b, Trailer...)
		_, err = w.out.Write(b)
		w.size += int64(len(b))
	}
	if err == nil {
		err = w.out.Publish()
	}
	if err != nil {
		w.Abort()
		return "", 0, fmt.Errorf("seal run %s: %w", w.path, err)
	}
	return sealOf(w.crc, w.size), w.size, nil
}

func sealOf(crc uint32, size int64) string { return fmt.Sprintf("%08x-%d", crc, size) }

// abort drops the unfinished run (a file: closed and removed).
func (w *Writer) Abort() { w.out.Discard() }
