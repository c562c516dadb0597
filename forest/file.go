package forest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"ocvist/internal/binfile"
)

// The model file, version 2, in binfile's envelope (magic "OCVFORST").
// All integers and floats are little-endian. The payload:
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
	b := m.appendTrees(m.appendHead(binfile.Begin(magic, formatVersion, m.payloadSize())))
	if _, err := w.Write(binfile.Seal(b)); err != nil {
		return fmt.Errorf("forest: save: %w", err)
	}
	return nil
}

func (m *Model) payloadSize() int {
	n := 64 + binfile.MetaSize(m.meta) + 4*len(m.roots) + 16*len(m.nodes) + 4*len(m.leaves)
	for _, s := range m.names {
		n += 4 + len(s)
	}
	return n
}

// appendHead appends the payload's fields up to the config.
func (m *Model) appendHead(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(m.nFeatures))
	b = le.AppendUint32(b, uint32(m.nClasses))
	b = le.AppendUint32(b, uint32(len(m.names)))
	for _, s := range m.names {
		b = binfile.AppendString(b, s)
	}
	b = binfile.AppendMeta(b, m.meta)
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
	return binfile.AppendFloat32s(b, m.leaves)
}

// Load reads a model written by Save. A file of another format version
// gives an error wrapping ErrFormatVersion; a damaged, truncated or
// inconsistent one an error wrapping ErrCorrupt. Load never panics on bad
// input and does not read past the end of the model.
func Load(r io.Reader) (*Model, error) { return binfile.Decode(r, fileFormat, decodePayload) }

// fileFormat is the forest file for binfile.Load.
var fileFormat = binfile.Format{Magic: magic, Versions: []uint32{1, formatVersion}, MaxPayload: maxPayload,
	Pkg: "forest", What: "forest model", Corrupt: ErrCorrupt, BadVersion: ErrFormatVersion}

func decodePayload(p []byte, version uint32) (*Model, error) {
	d := binfile.NewDecoder(p)
	m := &Model{}
	if err := m.decodeHead(d, version); err != nil {
		return nil, err
	}
	m.decodeTrees(d)
	if d.Err != nil {
		return nil, d.Err
	}
	if d.Left() != 0 {
		return nil, fmt.Errorf("%d trailing bytes", d.Left())
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	m.prepare()
	return m, nil
}

// decodeHead reads the payload's fields up to the config.
func (m *Model) decodeHead(d *binfile.Decoder, version uint32) error {
	m.nFeatures, m.nClasses = int(d.U32()), int(d.U32())
	if nn := d.Count(4); nn > 0 {
		m.names = make([]string, nn)
		for i := range m.names {
			m.names[i] = d.String()
		}
	}
	if version >= 2 {
		var err error
		if m.meta, err = d.Meta(); err != nil {
			return err
		}
	}
	c := &m.cfg
	c.Trees, c.MaxDepth, c.MinLeaf, c.Bins = int(d.U32()), int(d.U32()), int(d.U32()), int(d.U32())
	c.FeatureFraction = math.Float64frombits(d.U64())
	c.SampleFraction = math.Float64frombits(d.U64())
	c.Seed = int64(d.U64())
	return nil
}

// decodeTrees reads the payload's trees (errors stay in d).
func (m *Model) decodeTrees(d *binfile.Decoder) {
	m.roots = make([]int32, d.Count(4))
	for i := range m.roots {
		m.roots[i] = int32(d.U32())
	}
	m.nodes = make([]node, d.Count(16))
	for i := range m.nodes {
		m.nodes[i].feature = int32(d.U32())
	}
	for i := range m.nodes {
		m.nodes[i].thr = math.Float64frombits(d.U64())
	}
	for i := range m.nodes {
		m.nodes[i].child = int32(d.U32())
	}
	nLeaves := d.U32()
	if m.nClasses >= 2 && m.nClasses <= maxClasses {
		m.leaves = d.Float32s(uint64(nLeaves) * uint64(m.nClasses))
	}
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

// LoadFile reads a model file (see Load); errors name the file.
func LoadFile(path string) (*Model, error) {
	return binfile.DecodeFile(path, fileFormat, decodePayload)
}
