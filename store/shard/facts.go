package shard

import (
	"encoding/binary"
	"io"
	"strings"
)

// runFacts reads what a run file says of itself without reading it
// through: the id in its header (its source in the ledger; "" if the
// header is unreadable) and the results in its footer, parsed backwards
// from the seal, when the file ends with one and the footer's results add
// up to its games (ok).
func Facts(src io.ReaderAt, size int64) (source string, f Footer, ok bool) {
	hr := &Reader{f: src, size: size, crcEnd: size, buf: make([]byte, 1<<12)}
	if n, _ := src.ReadAt(hr.buf[:len(Magic)], 0); n == len(Magic) && string(hr.buf[:n]) == Magic && hr.readHeader() == nil {
		source = hr.Header.ID
	}
	tail := make([]byte, min(size, 128))
	if _, err := src.ReadAt(tail, size-int64(len(tail))); err != nil || !strings.HasSuffix(string(tail), Trailer) {
		return source, f, false
	}
	v, ok := footerBackwards(tail[:len(tail)-SealSize])
	ok = ok && v[1]+v[2]+v[3] == v[0]
	return source, Footer{Counts{v[0], v[1], v[2], v[3]}, v[4], v[5]}, ok
}

// footerBackwards parses the footer record that ends b: the tag 0 and six
// uvarints, found from the end (a uvarint's last byte is below 0x80, the
// others are not).
func footerBackwards(b []byte) (v [6]int64, ok bool) {
	end := len(b)
	for i := len(v) - 1; i >= 0; i-- {
		if end == 0 || b[end-1] >= 0x80 {
			return v, false
		}
		start := end - 1
		for start > 0 && b[start-1] >= 0x80 {
			start--
		}
		x, n := binary.Uvarint(b[start:end])
		if n != end-start || x > 1<<62 {
			return v, false
		}
		v[i], end = int64(x), start
	}
	return v, end > 0 && b[end-1] == tagFooter
}
