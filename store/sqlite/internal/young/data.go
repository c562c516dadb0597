package young

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"sort"

	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
)

// A young run's bytes are rows of young_data (run, off, data): the run
// cut into chunks of Chunk bytes (the last one shorter), keyed by the
// run's name and the chunk's offset in it. They are written in the
// transaction that adds the run to young_runs and deleted in the one that
// expires it, so the database is one file that one copy takes whole, and
// a reader's transaction sees a run's bytes exactly as it sees its row.
//
// Chunks, not one blob per run: a blob is read whole into memory, SQLite
// caps one at 1 GB (an export of a large database merged in is bigger),
// and go-sqlite3 (v1.14.52) has no incremental blob I/O. Measured on the
// shared 2-core machine (one quiet run; others were up to 10 times slower
// while other work used the disk), 10 MB written in one transaction and
// read back in another: 64 KiB chunks 8.5 ms a read, 256 KiB 5.6 ms,
// 1 MiB 5.8 ms, one 10 MiB blob 9.5 ms (a file from the page cache:
// 1.0 ms); writes 17–21 ms (a synced file: 13 ms). A page size of 64 KiB
// or mmap were not clearly faster, and a larger page would cost the moves
// table's upserts. store/sqlite's BenchmarkYoungRead measures the reading path.
const Chunk = 256 << 10

const (
	youngDataAdd    = "INSERT INTO young_data (run, off, data) VALUES (?, ?, ?)"
	youngDataChunk  = "SELECT data FROM young_data WHERE run = ? AND off = ?"
	youngDataLayout = "SELECT off, length(data) FROM young_data WHERE run = ? ORDER BY off"
	youngDataDelete = "DELETE FROM young_data WHERE run = ?"
)

// Writer writes a young run's bytes into young_data, a chunk at a time,
// in the caller's transaction. It is a shard.Sink.
type Writer struct {
	ctx  context.Context
	q    Querier
	name string
	off  int64 // bytes written in chunks before buf
	buf  []byte
}

// NewWriter starts the bytes of the young run name, in q's transaction.
func NewWriter(ctx context.Context, q Querier, name string) *Writer {
	return &Writer{ctx: ctx, q: q, name: name, buf: make([]byte, 0, Chunk)}
}

// Write appends p, storing every full chunk.
func (w *Writer) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf = w.buf[:len(w.buf)+k]
		p, n = p[k:], n+k
		if len(w.buf) == cap(w.buf) {
			if err := w.Flush(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// ReadFrom appends everything r holds (io.Copy uses it: no extra copy).
func (w *Writer) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	for {
		k, err := r.Read(w.buf[len(w.buf):cap(w.buf)])
		w.buf = w.buf[:len(w.buf)+k]
		n += int64(k)
		if len(w.buf) == cap(w.buf) {
			if err := w.Flush(); err != nil {
				return n, err
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Flush stores the buffered bytes as one chunk: the run's bytes are then
// all in young_data.
func (w *Writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.q.ExecContext(w.ctx, youngDataAdd, w.name, w.off, w.buf); err != nil {
		return fmt.Errorf("write young run %s: %w", w.name, err)
	}
	w.off += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}

// Size is the number of bytes written so far.
func (w *Writer) Size() int64 { return w.off + int64(len(w.buf)) }

// Publish stores the last chunk: the caller's commit makes it durable.
func (w *Writer) Publish() error { return w.Flush() }

// Discard does nothing: the caller's transaction rolls the chunks back.
func (w *Writer) Discard() {}

// Create starts a run written into young_data as name, in q's
// transaction.
func Create(ctx context.Context, q Querier, name string, h shard.Header) (*shard.Writer, error) {
	return shard.Start(NewWriter(ctx, q, name), name, h)
}

// Data reads a young run's bytes from young_data in the caller's
// transaction, one chunk at a time: an io.ReaderAt for shard.NewReader.
type Data struct {
	ctx  context.Context
	q    Querier
	name string
	offs []int64 // the chunks' offsets, then the run's size
	cur  int     // the chunk in buf, or −1
	buf  []byte
}

// OpenData lists the chunks of the young run name, which young_runs
// says holds size bytes (size < 0: as many as its chunks hold). Chunks
// that do not follow each other from 0 to size give ErrCorrupt: the run's
// data is missing or cut short.
func OpenData(ctx context.Context, q Querier, name string, size int64) (*Data, error) {
	rows, err := q.QueryContext(ctx, youngDataLayout, name)
	if err != nil {
		return nil, sqlerr.Classify(err)
	}
	defer rows.Close()
	d := &Data{ctx: ctx, q: q, name: name, cur: -1}
	var end int64
	for rows.Next() {
		var off, n int64
		if err := rows.Scan(&off, &n); err != nil {
			return nil, err
		}
		if off != end || n <= 0 {
			return nil, fmt.Errorf("%w: its data has a gap or an overlap at byte %d", store.ErrCorrupt, end)
		}
		d.offs = append(d.offs, off)
		end = off + n
	}
	if err := rows.Err(); err != nil {
		return nil, sqlerr.Classify(err)
	}
	if size >= 0 && end != size {
		return nil, fmt.Errorf("%w: its data holds %d of its %d bytes", store.ErrCorrupt, end, size)
	}
	d.offs = append(d.offs, end)
	return d, nil
}

// Size is the run's size in bytes.
func (d *Data) Size() int64 { return d.offs[len(d.offs)-1] }

// ReadAt reads len(p) bytes at off, fewer only at the end (io.EOF).
func (d *Data) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= d.Size() {
			return n, io.EOF
		}
		i := sort.Search(len(d.offs)-1, func(i int) bool { return d.offs[i+1] > at })
		if i != d.cur {
			if err := d.load(i); err != nil {
				return n, err
			}
		}
		n += copy(p[n:], d.buf[at-d.offs[i]:])
	}
	return n, nil
}

// load reads chunk i into buf.
func (d *Data) load(i int) error {
	d.cur = -1
	rows, err := d.q.QueryContext(d.ctx, youngDataChunk, d.name, d.offs[i])
	if err != nil {
		return sqlerr.Classify(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return sqlerr.Classify(err)
		}
		return fmt.Errorf("%w: chunk at byte %d is gone", store.ErrCorrupt, d.offs[i])
	}
	var raw sql.RawBytes
	if err := rows.Scan(&raw); err != nil {
		return err
	}
	if int64(len(raw)) != d.offs[i+1]-d.offs[i] {
		return fmt.Errorf("%w: chunk at byte %d has %d bytes, want %d", store.ErrCorrupt, d.offs[i], len(raw), d.offs[i+1]-d.offs[i])
	}
	d.buf = append(d.buf[:0], raw...)
	d.cur = i
	return rows.Close()
}
