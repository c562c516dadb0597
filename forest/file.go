package forest

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
)

// The model file, version 2. All integers and floats are little-endian.
//
//	magic    [8]byte  "OCVFORST"
//	version  uint32   formatVersion
//	length   uint64   number of payload bytes
//	payload  [length]byte
//	crc      uint32   CRC-32 (IEEE) of magic, version, length and payload
//
// The payload:
//
//	features uint32                 columns a row must have
//	classes  uint32                 K, 2..256
//	names    uint32, then that many (uint32 length, UTF-8 bytes); 0 or features
//	meta     uint32 M, then M pairs of (uint32 length, key bytes), (uint32
//	         length, value bytes), keys non-empty and strictly ascending
//	config   uint32 Trees, MaxDepth, MinLeaf, Bins;
//	         float64 FeatureFraction, SampleFraction; int64 Seed
//	trees    uint32 T, then T uint32 roots (ascending; roots[0] = 0)
//	nodes    uint32 N, then N int32 features, N float64 thresholds, N int32 children
//	leaves   uint32 L, then L*K float32 probabilities
//
// Node i of tree t (roots[t] <= i < roots[t+1], or N for the last tree) is a
// leaf if its feature is -1, and then its child is its leaf index; otherwise
// x goes to child if x[feature] < threshold, else to child+1, and
// i < child and child+1 lie within the same tree. The nodes of each tree
// thus form a DAG walked in increasing index order, which Load checks.
//
// Version 1 is the same without the meta field (Config.Meta); Load reads
// it as a model without metadata.
const (
	formatVersion = 2
	magic         = "OCVFORST"
	headerSize    = len(magic) + 4 + 8
	maxPayload    = 1 << 34
)

var (
	// ErrFormatVersion means the file is a model file of a format version
	// this build cannot read.
	ErrFormatVersion = errors.New("forest: unsupported model format version")
	// ErrCorrupt means the file is not a valid model file: wrong magic,
	// truncated, checksum mismatch, or inconsistent contents.
	ErrCorrupt = errors.New("forest: corrupt model file")
)

// Save writes the model in the versioned binary format described in
// file.go. The bytes depend only on the model, so two fits with the same
// data and Config save identical files.
func (m *Model) Save(w io.Writer) error {
	buf := m.appendHeader(make([]byte, 0, headerSize+m.payloadSize()+4))
	buf = m.appendPayload(buf)
	binary.LittleEndian.PutUint64(buf[len(magic)+4:], uint64(len(buf)-headerSize))
	buf = binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("forest: save: %w", err)
	}
	return nil
}

func (m *Model) payloadSize() int {
	n := 68 + 4*len(m.roots) + 16*len(m.nodes) + 4*len(m.leaves) + 4*len(m.names)
	for k, v := range m.meta {
		n += 8 + len(k) + len(v)
	}
	return n
}

func (m *Model) appendHeader(b []byte) []byte {
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, formatVersion)
	return binary.LittleEndian.AppendUint64(b, 0) // length, patched by Save
}

func (m *Model) appendPayload(b []byte) []byte {
	return m.appendTrees(m.appendHead(b))
}

// appendHead appends the payload's fields up to the config.
func (m *Model) appendHead(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(m.nFeatures))
	b = le.AppendUint32(b, uint32(m.nClasses))
	b = le.AppendUint32(b, uint32(len(m.names)))
	for _, s := range m.names {
		b = le.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	b = le.AppendUint32(b, uint32(len(m.meta)))
	for _, k := range slices.Sorted(maps.Keys(m.meta)) {
		for _, s := range []string{k, m.meta[k]} {
			b = le.AppendUint32(b, uint32(len(s)))
			b = append(b, s...)
		}
	}
	c := m.cfg
	for _, v := range []int{c.Trees, c.MaxDepth, c.MinLeaf, c.Bins} {
		b = le.AppendUint32(b, uint32(v))
	}
	b = le.AppendUint64(b, math.Float64bits(c.FeatureFraction))
	b = le.AppendUint64(b, math.Float64bits(c.SampleFraction))
	return le.AppendUint64(b, uint64(c.Seed))
}

// appendTrees appends the payload's trees: roots, nodes and leaves.
func (m *Model) appendTrees(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(len(m.roots)))
	for _, r := range m.roots {
		b = le.AppendUint32(b, uint32(r))
	}
	b = le.AppendUint32(b, uint32(len(m.nodes)))
	for i := range m.nodes {
		b = le.AppendUint32(b, uint32(m.fileNode(i).feature))
	}
	for i := range m.nodes {
		b = le.AppendUint64(b, math.Float64bits(m.fileNode(i).thr))
	}
	for i := range m.nodes {
		b = le.AppendUint32(b, uint32(m.fileNode(i).child))
	}
	b = le.AppendUint32(b, uint32(len(m.leaves)/m.nClasses))
	for _, p := range m.leaves {
		b = le.AppendUint32(b, math.Float32bits(p))
	}
	return b
}

// Load reads a model written by Save. A file of another format version
// gives an error wrapping ErrFormatVersion; a damaged, truncated or
// inconsistent one an error wrapping ErrCorrupt. Load never panics on bad
// input and does not read past the end of the model.
func Load(r io.Reader) (*Model, error) {
	var hdr [headerSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, loadErr(err)
	}
	if string(hdr[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: not a forest model (bad magic)", ErrCorrupt)
	}
	le := binary.LittleEndian
	version := le.Uint32(hdr[len(magic):])
	if version != 1 && version != formatVersion {
		return nil, fmt.Errorf("%w %d (this build reads 1 and %d)", ErrFormatVersion, version, formatVersion)
	}
	n := le.Uint64(hdr[len(magic)+4:])
	if n > maxPayload {
		return nil, fmt.Errorf("%w: payload length %d too large", ErrCorrupt, n)
	}
	rest, err := io.ReadAll(io.LimitReader(r, int64(n)+4))
	if err != nil {
		return nil, loadErr(err)
	}
	if uint64(len(rest)) != n+4 {
		return nil, fmt.Errorf("%w: truncated (%d of %d bytes)", ErrCorrupt, headerSize+len(rest), uint64(headerSize)+n+4)
	}
	payload := rest[:n]
	crc := crc32.Update(crc32.ChecksumIEEE(hdr[:]), crc32.IEEETable, payload)
	if crc != le.Uint32(rest[n:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	m, err := decodePayload(payload, version)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return m, nil
}

func loadErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	return fmt.Errorf("forest: load: %w", err)
}

func decodePayload(p []byte, version uint32) (*Model, error) {
	d := decoder{buf: p}
	m := &Model{}
	if err := m.decodeHead(&d, version); err != nil {
		return nil, err
	}
	m.decodeTrees(&d)
	if d.err != nil {
		return nil, d.err
	}
	if len(d.buf) != 0 {
		return nil, fmt.Errorf("%d trailing bytes", len(d.buf))
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	m.prepare()
	return m, nil
}

// decodeHead reads the payload's fields up to the config.
func (m *Model) decodeHead(d *decoder, version uint32) error {
	m.nFeatures, m.nClasses = int(d.u32()), int(d.u32())
	if nn := d.count(4); nn > 0 {
		m.names = make([]string, nn)
		for i := range m.names {
			m.names[i] = d.string()
		}
	}
	if version >= 2 {
		if err := m.decodeMeta(d); err != nil {
			return err
		}
	}
	c := &m.cfg
	c.Trees, c.MaxDepth, c.MinLeaf, c.Bins = int(d.u32()), int(d.u32()), int(d.u32()), int(d.u32())
	c.FeatureFraction = math.Float64frombits(d.u64())
	c.SampleFraction = math.Float64frombits(d.u64())
	c.Seed = int64(d.u64())
	return nil
}

// decodeTrees reads the payload's trees (errors stay in d).
func (m *Model) decodeTrees(d *decoder) {
	m.roots = make([]int32, d.count(4))
	for i := range m.roots {
		m.roots[i] = int32(d.u32())
	}
	m.nodes = make([]node, d.count(16))
	for i := range m.nodes {
		m.nodes[i].feature = int32(d.u32())
	}
	for i := range m.nodes {
		m.nodes[i].thr = math.Float64frombits(d.u64())
	}
	for i := range m.nodes {
		m.nodes[i].child = int32(d.u32())
	}
	nLeaves := d.u32()
	if m.nClasses >= 2 && m.nClasses <= maxClasses {
		m.leaves = make([]float32, d.limit(uint64(nLeaves)*uint64(m.nClasses), 4))
		for i := range m.leaves {
			m.leaves[i] = math.Float32frombits(d.u32())
		}
	}
}

// decodeMeta reads the meta field, which must be in the form Save writes.
func (m *Model) decodeMeta(d *decoder) error {
	n := d.count(8)
	prev := ""
	for i := range n {
		k, v := d.string(), d.string()
		if d.err != nil {
			return d.err
		}
		if k == "" || (i > 0 && k <= prev) {
			return fmt.Errorf("meta key %q empty or out of order", k)
		}
		if m.meta == nil {
			m.meta = make(map[string]string, n)
		}
		m.meta[k], prev = v, k
	}
	return nil
}

// check verifies what Predict relies on, so a loaded model cannot index out
// of range or loop.
func (m *Model) check() error {
	switch {
	case m.nFeatures < 1 || m.nFeatures > math.MaxInt32:
		return fmt.Errorf("feature count %d", m.nFeatures)
	case m.nClasses < 2 || m.nClasses > maxClasses:
		return fmt.Errorf("class count %d", m.nClasses)
	case len(m.names) != 0 && len(m.names) != m.nFeatures:
		return fmt.Errorf("%d names for %d features", len(m.names), m.nFeatures)
	case len(m.roots) == 0 || len(m.roots) != m.cfg.Trees:
		return fmt.Errorf("%d trees, config says %d", len(m.roots), m.cfg.Trees)
	}
	if err := m.cfg.Validate(); err != nil {
		return err
	}
	nLeaves := len(m.leaves) / m.nClasses
	for t, r := range m.roots {
		end := int32(len(m.nodes))
		if t+1 < len(m.roots) {
			end = m.roots[t+1]
		}
		if (t == 0 && r != 0) || r < 0 || r >= end || int(end) > len(m.nodes) {
			return fmt.Errorf("tree %d: bad root %d", t, r)
		}
		for i := r; i < end; i++ {
			if err := m.checkNode(i, end, nLeaves); err != nil {
				return fmt.Errorf("tree %d: node %d: %v", t, i, err)
			}
		}
	}
	for _, p := range m.leaves {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("leaf probability %v", p)
		}
	}
	return nil
}

func (m *Model) checkNode(i, end int32, nLeaves int) error {
	nd := m.nodes[i]
	switch {
	case nd.feature == -1:
		if nd.child < 0 || int(nd.child) >= nLeaves {
			return fmt.Errorf("leaf %d of %d", nd.child, nLeaves)
		}
	case nd.feature < 0 || int(nd.feature) >= m.nFeatures:
		return fmt.Errorf("feature %d", nd.feature)
	case nd.child <= i || nd.child >= end-1:
		return fmt.Errorf("children %d, %d outside %d..%d", nd.child, nd.child+1, i+1, end-1)
	case math.IsNaN(nd.thr):
		return fmt.Errorf("NaN threshold")
	}
	return nil
}

// decoder reads little-endian values from buf, recording the first
// shortage in err (after which every read yields zero).
type decoder struct {
	buf []byte
	err error
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n > len(d.buf) {
		if d.err == nil {
			d.err = errors.New("payload too short")
		}
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

// string reads a uint32 length and that many bytes.
func (d *decoder) string() string { return string(d.bytes(d.count(1))) }

func (d *decoder) u32() uint32 {
	if b := d.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// count reads a uint32 element count and checks that that many elements of
// size bytes each can still follow, so a corrupt count cannot cause a huge
// allocation.
func (d *decoder) count(size int) int {
	return d.limit(uint64(d.u32()), size)
}

func (d *decoder) limit(n uint64, size int) int {
	if d.err != nil {
		return 0
	}
	if n*uint64(size) > uint64(len(d.buf)) {
		d.err = fmt.Errorf("count %d exceeds the %d bytes left", n, len(d.buf))
		return 0
	}
	return int(n)
}

// LoadFile reads a model file (see Load); errors name the file.
func LoadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("forest: %w", err)
	}
	defer f.Close()
	m, err := Load(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	return m, nil
}
