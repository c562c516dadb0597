package binfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

const testMagic = "OCVTESTS"

// sealed is a file of testMagic and version 3 with payload p.
func sealed(p []byte) []byte { return Seal(append(Begin(testMagic, 3, len(p)), p...)) }

// TestEnvelopeRoundTrip: Open gives back the version and payload Begin and
// Seal wrote, reads no byte past the file, and so does ReadHeader then
// ReadPayload; the header's fields are where the package documentation
// says, and Begin's capacity holds the whole file.
func TestEnvelopeRoundTrip(t *testing.T) {
	for _, p := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("payload "), 1000)} {
		b := sealed(p)
		if len(b) != HeaderSize+len(p)+4 || cap(b) != len(b) || string(b[:8]) != testMagic ||
			binary.LittleEndian.Uint32(b[8:]) != 3 || binary.LittleEndian.Uint64(b[12:]) != uint64(len(p)) {
			t.Fatalf("%d-byte payload: a file of %d bytes (capacity %d), header %x", len(p), len(b), cap(b), b[:HeaderSize])
		}
		r := bytes.NewReader(append(slices.Clone(b), "next"...))
		v, got, err := open(r, testMagic, 1<<20)
		if err != nil || v != 3 || !bytes.Equal(got, p) || r.Len() != 4 {
			t.Fatalf("%d-byte payload: Open gave version %d, %d bytes, %v, %d bytes left", len(p), v, len(got), err, r.Len())
		}
		r = bytes.NewReader(b)
		h, err := ReadHeader(r, testMagic)
		if err != nil || h.Version != 3 || h.Length != uint64(len(p)) || r.Len() != len(p)+4 {
			t.Fatalf("ReadHeader: %+v, %v, %d bytes left", h, err, r.Len())
		}
		if got, err := h.ReadPayload(r, uint64(len(p))); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("ReadPayload: %d bytes, %v", len(got), err)
		}
	}
}

// TestOpenErrors: each way a file is not one gives its error: ErrMagic,
// ErrTrunc at every length short of the file, ErrChecksum for any flipped
// byte after the magic that leaves the length alone, ErrTooLarge before
// the payload is read, and a reader's own error as it is. The version is
// known once the header is read.
func TestOpenErrors(t *testing.T) {
	b := sealed([]byte("some payload bytes"))
	if _, _, err := open(bytes.NewReader(b), "OCVOTHER", 1<<20); err != ErrMagic {
		t.Errorf("another magic: %v, want ErrMagic", err)
	}
	for n := range len(b) {
		v, p, err := open(bytes.NewReader(b[:n]), testMagic, 1<<20)
		if !errors.Is(err, ErrTrunc) || p != nil || (n >= HeaderSize) != (v == 3) {
			t.Fatalf("first %d of %d bytes: version %d, %v; want ErrTrunc", n, len(b), v, err)
		}
	}
	for i := 8; i < len(b); i++ {
		if i >= 12 && i < HeaderSize {
			continue // the length
		}
		f := slices.Clone(b)
		f[i] ^= 0x01
		if _, _, err := open(bytes.NewReader(f), testMagic, 1<<20); err != ErrChecksum {
			t.Fatalf("byte %d flipped: %v, want ErrChecksum", i, err)
		}
	}
	huge := Seal(Begin(testMagic, 3, 0))
	binary.LittleEndian.PutUint64(huge[12:], 1<<60)
	v, _, err := open(io.MultiReader(bytes.NewReader(huge[:HeaderSize]), iotest.ErrReader(errors.New("read"))), testMagic, 1<<20)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "payload length 1152921504606846976 too large" || v != 3 {
		t.Errorf("a payload of 2^60 bytes: version %d, %v; want ErrTooLarge before reading", v, err)
	}
	boom := errors.New("boom")
	for _, n := range []int{0, 5, HeaderSize + 3} {
		r := io.MultiReader(bytes.NewReader(b[:n]), iotest.ErrReader(boom))
		if _, _, err := open(r, testMagic, 1<<20); err != boom {
			t.Errorf("a reader failing after %d bytes: %v, want its error", n, err)
		}
	}
}

// TestDecoder: the fields the Append functions write read back in order;
// a short payload records its first error, after which every read gives
// zero values and the error stays.
func TestDecoder(t *testing.T) {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 7)
	b = le.AppendUint64(b, 1<<40+5)
	b = AppendString(b, "naïve")
	b = AppendFloat32s(b, []float32{1.5, float32(math.Inf(-1)), 0})
	b = append(b, 9, 9)
	d := NewDecoder(b)
	if d.U32() != 7 || d.U64() != 1<<40+5 || d.String() != "naïve" || !slices.Equal(d.Float32s(3), []float32{1.5, float32(math.Inf(-1)), 0}) ||
		d.Left() != 2 || d.Err != nil {
		t.Fatalf("read back wrong, %d bytes left, %v", d.Left(), d.Err)
	}
	if v := d.U32(); v != 0 || d.Err == nil || d.Left() != 2 {
		t.Fatalf("a uint32 from 2 bytes: %d, %v, %d left", v, d.Err, d.Left())
	}
	first := d.Err
	if d.Bytes(1) != nil || d.U64() != 0 || d.String() != "" || len(d.Float32s(0)) != 0 || d.Count(1) != 0 || d.Err != first || d.Left() != 2 {
		t.Errorf("reads after an error: the error %v, %d bytes left", d.Err, d.Left())
	}
}

// TestDecoderHugeCounts: counts far past the bytes left (up to the
// largest uint32 of 16-byte elements, or 2^61 float32s) are refused
// without allocating for them.
func TestDecoderHugeCounts(t *testing.T) {
	le := binary.LittleEndian
	for _, size := range []int{1, 4, 8, 16} {
		d := NewDecoder(append(le.AppendUint32(nil, math.MaxUint32), make([]byte, 60)...))
		if n := d.Count(size); n != 0 || d.Err == nil || !strings.Contains(d.Err.Error(), "count 4294967295 exceeds the 60 bytes left") {
			t.Errorf("size %d: count %d, %v", size, n, d.Err)
		}
	}
	if d := NewDecoder(make([]byte, 8)); d.Limit(2, 4) != 2 || d.Limit(3, 4) != 0 || d.Err == nil {
		t.Errorf("Limit at the edge: %v", d.Err)
	}
	for _, n := range []uint64{9, 1 << 32, 1 << 40, 1<<61 - 1} {
		d := NewDecoder(make([]byte, 32))
		if v := d.Float32s(n); cap(v) != 0 || d.Err == nil || d.Left() != 32 {
			t.Errorf("%d float32s from 32 bytes: %d values, %v", n, cap(v), d.Err)
		}
	}
	d := NewDecoder(le.AppendUint32(nil, math.MaxUint32))
	if s := d.String(); s != "" || d.Err == nil {
		t.Errorf("a string of 2^32-1 bytes from none: %q, %v", s, d.Err)
	}
}

// TestMeta: metadata reads back as written (keys sorted, nil for none),
// MetaSize is its length, and a payload with an empty, repeated or
// unordered key, or a count past the bytes, is refused.
func TestMeta(t *testing.T) {
	for _, meta := range []map[string]string{nil, {"rule": "renju", "a": "", "ł": "ü"}} {
		b := AppendMeta(nil, meta)
		if len(b) != MetaSize(meta) {
			t.Errorf("%v: %d bytes, MetaSize %d", meta, len(b), MetaSize(meta))
		}
		d := NewDecoder(b)
		got, err := d.Meta()
		if err != nil || !maps.Equal(got, meta) || (meta == nil) != (got == nil) || d.Left() != 0 {
			t.Errorf("%v read back as %v, %v, %d bytes left", meta, got, err, d.Left())
		}
	}
	if b := AppendMeta(nil, map[string]string{"b": "1", "a": "2"}); !bytes.Equal(b, []byte("\x02\x00\x00\x00\x01\x00\x00\x00a\x01\x00\x00\x002\x01\x00\x00\x00b\x01\x00\x00\x001")) {
		t.Errorf("AppendMeta wrote %q, want keys in ascending order", b)
	}
	pairs := func(n uint32, kv ...string) []byte {
		b := binary.LittleEndian.AppendUint32(nil, n)
		for _, s := range kv {
			b = AppendString(b, s)
		}
		return b
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty key", pairs(1, "", "x"), `meta key "" empty or out of order`},
		{"repeated key", pairs(2, "a", "1", "a", "2"), `meta key "a" empty or out of order`},
		{"unordered keys", pairs(2, "b", "1", "a", "2"), `meta key "a" empty or out of order`},
		{"a pair missing", pairs(2, "alpha", "12345678"), "payload too short"},
		{"huge count", pairs(math.MaxUint32, "a", "1"), "count 4294967295 exceeds the 10 bytes left"},
	} {
		if m, err := NewDecoder(c.b).Meta(); m != nil || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v; want %q", c.name, m, err, c.want)
		}
	}
}

// open is ReadHeader then ReadPayload: a file's version (0 when its
// header could not be read) and payload, the envelope's own errors.
func open(r io.Reader, magic string, maxPayload uint64) (uint32, []byte, error) {
	h, err := ReadHeader(r, magic)
	if err != nil {
		return 0, nil, err
	}
	payload, err := h.ReadPayload(r, maxPayload)
	return h.Version, payload, err
}
