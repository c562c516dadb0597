// Package binfile is the envelope and the little-endian fields of
// Ocvist's model files (package forest's and package mlp's):
//
//	magic    [8]byte  the kind of file
//	version  uint32   its format version
//	length   uint64   number of payload bytes
//	payload  [length]byte
//	crc      uint32   CRC-32 (IEEE) of magic, version, length and payload
//
// Begin and Seal write the envelope; ReadHeader and ReadPayload (or Load,
// both at once) read and check it, Decode and DecodeFile a whole model
// with its package's decoder; Decoder reads a payload's fields,
// recording the first error, so that a damaged file gives an error and
// never a panic or a huge allocation.
package binfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
)

// HeaderSize is the envelope's bytes before the payload.
const HeaderSize = 8 + 4 + 8

// Begin starts a file of magic (8 bytes) and version; append the payload,
// then Seal.
func Begin(magic string, version uint32, capacity int) []byte {
	b := make([]byte, 0, HeaderSize+capacity+4)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, version)
	return binary.LittleEndian.AppendUint64(b, 0) // the length, set by Seal
}

// Seal sets the length of the file b begun by Begin and appends its
// checksum.
func Seal(b []byte) []byte {
	binary.LittleEndian.PutUint64(b[HeaderSize-8:], uint64(len(b)-HeaderSize))
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// Errors of ReadHeader, ReadPayload and Open, which the caller wraps in
// its own (forest.ErrCorrupt, mlp.ErrCorrupt). A reader's other errors
// are returned as they are.
var (
	ErrMagic    = errors.New("bad magic")
	ErrTrunc    = errors.New("truncated")
	ErrChecksum = errors.New("checksum mismatch")
	ErrTooLarge = errors.New("too large")
)

// Header is the start of a file: its format version and the length of
// its payload, as ReadHeader read them.
type Header struct {
	Version uint32
	Length  uint64
	raw     [HeaderSize]byte // for the checksum
}

// ReadHeader reads the HeaderSize bytes of a file of magic from r (a
// caller judges the version before reading the payload).
func ReadHeader(r io.Reader, magic string) (Header, error) {
	var h Header
	if _, err := io.ReadFull(r, h.raw[:]); err != nil {
		return Header{}, readErr(err)
	}
	if string(h.raw[:len(magic)]) != magic {
		return Header{}, ErrMagic
	}
	le := binary.LittleEndian
	h.Version, h.Length = le.Uint32(h.raw[8:]), le.Uint64(h.raw[12:])
	return h, nil
}

// ReadPayload reads from r the payload h announces and the checksum after
// it, no more, and checks them. A payload over maxPayload bytes is
// refused before it is read.
func (h Header) ReadPayload(r io.Reader, maxPayload uint64) ([]byte, error) {
	n := h.Length
	if n > maxPayload {
		return nil, fmt.Errorf("payload length %d %w", n, ErrTooLarge)
	}
	rest, err := io.ReadAll(io.LimitReader(r, int64(n)+4))
	if err != nil {
		return nil, readErr(err)
	}
	if uint64(len(rest)) != n+4 {
		return nil, fmt.Errorf("%w (%d of %d bytes)", ErrTrunc, HeaderSize+len(rest), uint64(HeaderSize)+n+4)
	}
	payload := rest[:n]
	if crc32.Update(crc32.ChecksumIEEE(h.raw[:]), crc32.IEEETable, payload) != binary.LittleEndian.Uint32(rest[n:]) {
		return nil, ErrChecksum
	}
	return payload, nil
}

// Format names a kind of file for Load: its magic, the versions this
// build reads, the payload's bound, and the caller's words and errors.
type Format struct {
	Magic      string
	Versions   []uint32 // the versions Load accepts
	MaxPayload uint64
	Pkg, What  string // "forest", "forest model": the errors' words
	// Corrupt is wrapped by the file's own faults (bad magic, truncated,
	// checksum mismatch, a payload too large), BadVersion by a version
	// not in Versions.
	Corrupt, BadVersion error
}

// Load reads one file of f from r, no more than its own bytes: its
// version (judged from the header, before the payload is read) and its
// payload, checked against the checksum. The file's faults wrap
// f.Corrupt or f.BadVersion; the reader's own error comes back as
// "PKG: load: ERR".
func Load(r io.Reader, f Format) (uint32, []byte, error) {
	h, err := ReadHeader(r, f.Magic)
	if err != nil {
		return 0, nil, f.wrap(err)
	}
	if !slices.Contains(f.Versions, h.Version) {
		reads := make([]string, len(f.Versions))
		for i, v := range f.Versions {
			reads[i] = fmt.Sprint(v)
		}
		return h.Version, nil, fmt.Errorf("%w %d (this build reads %s)", f.BadVersion, h.Version, strings.Join(reads, " and "))
	}
	payload, err := h.ReadPayload(r, f.MaxPayload)
	if err != nil {
		return h.Version, nil, f.wrap(err)
	}
	return h.Version, payload, nil
}

// Decode reads one file of f from r (see Load) and decodes its payload
// with decode; decode's error is the file's fault, wrapped in f.Corrupt.
func Decode[T any](r io.Reader, f Format, decode func(payload []byte, version uint32) (T, error)) (T, error) {
	var zero T
	version, payload, err := Load(r, f)
	if err != nil {
		return zero, err
	}
	m, err := decode(payload, version)
	if err != nil {
		return zero, fmt.Errorf("%w: %v", f.Corrupt, err)
	}
	return m, nil
}

// DecodeFile is Decode of the file at path, read through a buffer; its
// errors name the file ("PKG: OPEN ERROR", or "model PATH: ERR").
func DecodeFile[T any](path string, f Format, decode func(payload []byte, version uint32) (T, error)) (T, error) {
	var zero T
	file, err := os.Open(path)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", f.Pkg, err)
	}
	defer file.Close()
	m, err := Decode(bufio.NewReader(file), f, decode)
	if err != nil {
		return zero, fmt.Errorf("model %s: %w", path, err)
	}
	return m, nil
}

// wrap maps an error of ReadHeader or ReadPayload to f's.
func (f Format) wrap(err error) error {
	switch {
	case errors.Is(err, ErrMagic):
		return fmt.Errorf("%w: not a %s (bad magic)", f.Corrupt, f.What)
	case errors.Is(err, ErrTrunc), errors.Is(err, ErrChecksum), errors.Is(err, ErrTooLarge):
		return fmt.Errorf("%w: %v", f.Corrupt, err)
	}
	return fmt.Errorf("%s: load: %w", f.Pkg, err)
}

func readErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrTrunc
	}
	return err
}

// AppendString appends a uint32 length and the bytes of s.
func AppendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// AppendMeta appends metadata: a uint32 count, then the pairs (key,
// value) as strings, keys in ascending order.
func AppendMeta(b []byte, meta map[string]string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		b = AppendString(AppendString(b, k), meta[k])
	}
	return b
}

// MetaSize is the bytes AppendMeta appends.
func MetaSize(meta map[string]string) int {
	n := 4
	for k, v := range meta {
		n += 8 + len(k) + len(v)
	}
	return n
}

// AppendFloat32s appends the bits of each of v.
func AppendFloat32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// Decoder reads little-endian fields from a payload, recording the first
// error (Err); after an error every read gives zero values.
type Decoder struct {
	buf []byte
	Err error
}

// NewDecoder reads payload.
func NewDecoder(payload []byte) *Decoder { return &Decoder{buf: payload} }

// Left is the number of bytes not read yet.
func (d *Decoder) Left() int { return len(d.buf) }

// Bytes reads n bytes.
func (d *Decoder) Bytes(n int) []byte {
	if d.Err != nil || n > len(d.buf) {
		if d.Err == nil {
			d.Err = errors.New("payload too short")
		}
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

// String reads a uint32 length and that many bytes.
func (d *Decoder) String() string { return string(d.Bytes(d.Count(1))) }

// U32 reads a uint32.
func (d *Decoder) U32() uint32 {
	if b := d.Bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// U64 reads a uint64.
func (d *Decoder) U64() uint64 {
	if b := d.Bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// Float32s reads n float32s, after checking that they can follow.
func (d *Decoder) Float32s(n uint64) []float32 {
	v := make([]float32, d.Limit(n, 4))
	for i := range v {
		v[i] = math.Float32frombits(d.U32())
	}
	return v
}

// Count reads a uint32 element count and checks that that many elements
// of size bytes each can still follow, so a corrupt count cannot cause a
// huge allocation.
func (d *Decoder) Count(size int) int { return d.Limit(uint64(d.U32()), size) }

// Limit checks that n elements of size bytes each can still follow and
// returns n (0 after an error).
func (d *Decoder) Limit(n uint64, size int) int {
	if d.Err != nil {
		return 0
	}
	if size != 0 && n > uint64(len(d.buf))/uint64(size) {
		d.Err = fmt.Errorf("count %d exceeds the %d bytes left", n, len(d.buf))
		return 0
	}
	return int(n)
}

// Meta reads metadata as AppendMeta writes it (nil when there is none),
// refusing empty or unordered keys.
func (d *Decoder) Meta() (map[string]string, error) {
	n := d.Count(8)
	var meta map[string]string
	prev := ""
	for i := range n {
		k, v := d.String(), d.String()
		if d.Err != nil {
			return nil, d.Err
		}
		if k == "" || (i > 0 && k <= prev) {
			return nil, fmt.Errorf("meta key %q empty or out of order", k)
		}
		if meta == nil {
			meta = make(map[string]string, n)
		}
		meta[k], prev = v, k
	}
	return meta, d.Err
}
