package shard

import (
	"encoding/binary"
	"fmt"

	"ocvist/canon"
	"ocvist/store"
)

// Key encodings of a position record.
const (
	keyText   = 0
	keyPacked = 1
)

// appendKey appends key in the record's key encoding: packed by canon
// when it packs, as text otherwise.
func AppendKey(b, key []byte) []byte {
	if p, ok := canon.AppendPacked(append(b, keyPacked), key); ok {
		return p
	}
	return appendBytes(append(b, keyText), key)
}

// rawKey reads a key's run encoding into dst, checking it.
func (r *Reader) rawKey(dst []byte) ([]byte, error) {
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
	return nil, fmt.Errorf("%w: key encoding %d", store.ErrCorrupt, enc)
}

// skipPosition passes over a position record (after its tag).
func (r *Reader) skipPosition() error {
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
	r.counted.Positions++
	r.counted.Rows += n
	return nil
}

// skipKey passes over a key.
func (r *Reader) skipKey() error {
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
		return fmt.Errorf("%w: key encoding %d", store.ErrCorrupt, enc)
	}
	if err := r.fill(n); err != nil {
		return err
	}
	r.r += n
	return nil
}

// packedLen is the length of the packed key at the reader's position,
// checked by canon and buffered.
func (r *Reader) packedLen() (int, error) {
	if err := r.fill(1); err != nil {
		return 0, err
	}
	_ = r.fill(1 + 2*int(r.buf[r.r])) // stones take one or two bytes; canon checks
	n, err := canon.PackedLen(r.buf[r.r:r.w])
	if err != nil {
		return 0, fmt.Errorf("%w: %v", store.ErrCorrupt, err)
	}
	return n, nil
}

// decodeKey appends the text of a key's run encoding (checked by rawKey
// or made by appendKey) to dst.
func DecodeKey(dst, enc []byte) []byte {
	if enc[0] == keyText {
		_, k := binary.Uvarint(enc[1:])
		return append(dst, enc[1+k:]...)
	}
	return canon.AppendUnpacked(dst, enc[1:])
}
