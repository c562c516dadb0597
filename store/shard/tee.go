package shard

import (
	"fmt"
	"io"
	"os"
)

// openCopying opens the run file at path for reading, copying the bytes it
// reads to w as they are read and checked: finish, called once the run
// has been read through, writes the rest (the seal's trailer, checked at
// the start). The copy is then exactly the bytes the
// reader checked.
func OpenCopying(path string, w io.Writer) (*Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	t := &teeAt{src: f, w: w}
	r, err := NewReader(t, fi.Size(), path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	r.closer = f
	finish := func() error {
		if t.err == nil {
			_, t.err = w.Write([]byte(Trailer))
		}
		if t.err == nil && t.next+int64(len(Trailer)) != fi.Size() {
			t.err = fmt.Errorf("copied %d of the run's %d bytes", t.next+int64(len(Trailer)), fi.Size())
		}
		return t.err
	}
	return r, finish, nil
}

// teeAt passes reads through to src and writes the bytes read to w once
// each, in order: a run reader reads a run sequentially, after peeks at
// its start and end.
type teeAt struct {
	src  io.ReaderAt
	w    io.Writer
	next int64 // bytes written to w
	err  error // of w
}

func (t *teeAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := t.src.ReadAt(p, off)
	if end := off + int64(n); t.err == nil && off <= t.next && end > t.next {
		_, t.err = t.w.Write(p[t.next-off : n])
		t.next = end
	}
	return n, err
}
