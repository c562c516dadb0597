package mlp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"ocvist/internal/binfile"
)

// The model file, version 2, in binfile's envelope (magic "OCVMLPNT"). All
// integers and floats are little-endian. The payload:
//
//	sparse, dense, hidden   uint32
//	meta     uint32 M, then M pairs of (uint32 length, key bytes), (uint32
//	         length, value bytes), keys non-empty and strictly ascending
//	config   uint32 Epochs, Batch, Shards; float64 LearningRate, L2;
//	         int64 Seed; uint32 flags (bit 0: Anneal)
//	weights  float32: S (sparse × hidden, row by row), D (dense × hidden),
//	         b1 (hidden), μ (dense), σ (dense), W2 (hidden), b2
const (
	formatVersion = 2
	magic         = "OCVMLPNT"
	maxPayload    = 1 << 32
)

var (
	// ErrFormatVersion means the file is a network file of a format
	// version this build cannot read.
	ErrFormatVersion = errors.New("mlp: unsupported model format version")
	// ErrCorrupt means the file is not a valid network file: wrong magic,
	// truncated, checksum mismatch, or inconsistent contents.
	ErrCorrupt = errors.New("mlp: corrupt model file")
)

// Magic is the first bytes of a network file (a reader tells it from a
// forest's by them).
const Magic = magic

// Save writes the model in the versioned binary format above. The bytes
// depend only on the model: two fits of the same rows and Config save
// identical files.
func (m *Model) Save(w io.Writer) error {
	n := 12 + binfile.MetaSize(m.meta) + 40 + 4*(len(m.s)+len(m.d)+len(m.b1)+len(m.mu)+len(m.sd)+len(m.w2)+1)
	b := binfile.Begin(magic, formatVersion, n)
	le := binary.LittleEndian
	for _, v := range []int{m.sparse, m.dense, m.hidden} {
		b = le.AppendUint32(b, uint32(v))
	}
	b = binfile.AppendMeta(b, m.meta)
	c := m.cfg
	for _, v := range []int{c.Epochs, c.Batch, c.Shards} {
		b = le.AppendUint32(b, uint32(v))
	}
	b = le.AppendUint64(b, math.Float64bits(c.LearningRate))
	b = le.AppendUint64(b, math.Float64bits(c.L2))
	b = le.AppendUint64(b, uint64(c.Seed))
	flags := uint32(0)
	if c.Anneal {
		flags |= flagAnneal
	}
	b = le.AppendUint32(b, flags)
	for _, v := range [][]float32{m.s, m.d, m.b1, m.mu, m.sd, m.w2, m.b2} {
		b = binfile.AppendFloat32s(b, v)
	}
	if _, err := w.Write(binfile.Seal(b)); err != nil {
		return fmt.Errorf("mlp: save: %w", err)
	}
	return nil
}

// Load reads a model written by Save. A file of another format version
// gives an error wrapping ErrFormatVersion; a damaged, truncated or
// inconsistent one an error wrapping ErrCorrupt. Load never panics on bad
// input and does not read past the end of the model.
func Load(r io.Reader) (*Model, error) { return binfile.Decode(r, fileFormat, decode) }

// fileFormat is the network file for binfile.Load.
var fileFormat = binfile.Format{Magic: magic, Versions: []uint32{1, formatVersion}, MaxPayload: maxPayload,
	Pkg: "mlp", What: "network model", Corrupt: ErrCorrupt, BadVersion: ErrFormatVersion}

// flagAnneal is the flags' bit of Config.Anneal.
const flagAnneal = 1

// decode reads a payload of version 1 (no flags) or 2.
func decode(p []byte, version uint32) (*Model, error) {
	d := binfile.NewDecoder(p)
	m := &Model{sparse: int(d.U32()), dense: int(d.U32()), hidden: int(d.U32())}
	var err error
	if m.meta, err = d.Meta(); err != nil {
		return nil, err
	}
	c := &m.cfg
	c.Hidden = m.hidden
	c.Epochs, c.Batch, c.Shards = int(d.U32()), int(d.U32()), int(d.U32())
	c.LearningRate = math.Float64frombits(d.U64())
	c.L2 = math.Float64frombits(d.U64())
	c.Seed = int64(d.U64())
	if version >= 2 {
		flags := d.U32()
		if flags&^flagAnneal != 0 {
			return nil, fmt.Errorf("unknown flags %#x", flags)
		}
		c.Anneal = flags&flagAnneal != 0
	}
	h := uint64(m.hidden)
	m.s = d.Float32s(uint64(m.sparse) * h)
	m.d = d.Float32s(uint64(m.dense) * h)
	m.b1 = d.Float32s(h)
	m.mu = d.Float32s(uint64(m.dense))
	m.sd = d.Float32s(uint64(m.dense))
	m.w2 = d.Float32s(h)
	m.b2 = d.Float32s(1)
	switch {
	case d.Err != nil:
		return nil, d.Err
	case d.Left() != 0:
		return nil, fmt.Errorf("%d trailing bytes", d.Left())
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	if err := m.cfg.Validate(); err != nil {
		return nil, err
	}
	m.prepare()
	return m, nil
}

// LoadFile reads a model file (see Load); errors name the file.
func LoadFile(path string) (*Model, error) { return binfile.DecodeFile(path, fileFormat, decode) }
