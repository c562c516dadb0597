package mlp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"ocvist/internal/binfile"
)

// smallModel is a network of 30 sparse columns, 4 dense inputs and 8
// hidden units with metadata, and its file.
func smallModel(t testing.TB) ([]byte, *Model) {
	t.Helper()
	cfg := smallConfig()
	cfg.Anneal = true
	cfg.Meta = map[string]string{"rule": "freestyle", "value_feature_set": "3", "empty": ""}
	m := mustFit(t, randRows(11, 400, 30, 4, 5), cfg)
	return mustSave(t, m), m
}

// weights are a model's parameter arrays in the file's order.
func (m *Model) weights() [7][]float32 { return [7][]float32{m.s, m.d, m.b1, m.mu, m.sd, m.w2, m.b2} }

// TestSaveLoadRoundTrip: a loaded model has every weight, the config and
// the metadata of the saved one, evaluates alike, and saves the same
// bytes; the model keeps a copy of the fit's metadata.
func TestSaveLoadRoundTrip(t *testing.T) {
	cfg := smallConfig()
	cfg.Meta = map[string]string{"rule": "renju", "value_feature_set": "3", "ł": "ünïcode", "empty": ""}
	want := maps.Clone(cfg.Meta)
	m := mustFit(t, randRows(12, 1000, 60, 7, 9), cfg)
	cfg.Meta["rule"] = "changed after the fit"
	data := mustSave(t, m)
	got, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got.Sparse() != 60 || got.Dense() != 7 || got.Hidden() != cfg.Hidden {
		t.Errorf("dimensions %d, %d, %d; want 60, 7, %d", got.Sparse(), got.Dense(), got.Hidden(), cfg.Hidden)
	}
	for i, w := range m.weights() {
		if g := got.weights()[i]; !slices.Equal(g, w) || len(w) == 0 {
			t.Errorf("weight array %d: %d values loaded, %d saved, or they differ", i, len(g), len(w))
		}
	}
	if !slices.Equal(got.dz, m.dz) || !slices.Equal(got.b1z, m.b1z) {
		t.Error("the folded standardisation differs")
	}
	cfg.Meta = nil
	if !reflect.DeepEqual(got.Config(), cfg) || !reflect.DeepEqual(m.Config(), cfg) {
		t.Errorf("Config %+v loaded, %+v fitted; want %+v", got.Config(), m.Config(), cfg)
	}
	if !maps.Equal(got.Meta(), want) || !maps.Equal(m.Meta(), want) {
		t.Errorf("Meta %v loaded, %v fitted; want %v", got.Meta(), m.Meta(), want)
	}
	got.Meta()["rule"] = "x" // a copy
	if got.Meta()["rule"] != "renju" {
		t.Error("Meta returned the model's own map")
	}
	if again := mustSave(t, got); !bytes.Equal(again, data) {
		t.Fatal("saving the loaded model gave different bytes")
	}
	held := randRows(13, 200, 60, 7, 9)
	for i := range held.Len() {
		if a, b := m.Predict(held.row(i)), got.Predict(held.row(i)); a != b {
			t.Fatalf("row %d: %v before save, %v after load", i, a, b)
		}
	}
}

// TestLoadFile: LoadFile reads a saved file; its errors name the file.
func TestLoadFile(t *testing.T) {
	data, m := smallModel(t)
	path := filepath.Join(t.TempDir(), "net.ocn")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil || !bytes.Equal(mustSave(t, got), mustSave(t, m)) {
		t.Fatalf("LoadFile: %v", err)
	}
	if err := os.WriteFile(path, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Errorf("a truncated file: %v; want ErrCorrupt naming the file", err)
	}
	if _, err := LoadFile(path + ".none"); err == nil || !strings.Contains(err.Error(), "net.ocn.none") {
		t.Errorf("a missing file: %v", err)
	}
}

// layout is a network file's fields as file.go documents them. Its bytes
// are written field by field, not by Save: the tests' twin of the format,
// which also writes the files Save never would.
type layout struct {
	version               uint32
	sparse, dense, hidden uint32
	metaCount             uint32
	meta                  [][2]string // in the file's order
	epochs, batch, shards uint32
	lr, l2                float64
	seed                  int64
	flags                 uint32       // version 2 on
	weights               [7][]float32 // S, D, b1, μ, σ, W2, b2
	trailer               []byte       // after the weights
}

func layoutOf(m *Model) layout {
	c := m.cfg
	l := layout{version: 2, sparse: uint32(m.sparse), dense: uint32(m.dense), hidden: uint32(m.hidden),
		epochs: uint32(c.Epochs), batch: uint32(c.Batch), shards: uint32(c.Shards), lr: c.LearningRate, l2: c.L2, seed: c.Seed}
	if c.Anneal {
		l.flags = 1
	}
	for _, k := range slices.Sorted(maps.Keys(m.meta)) {
		l.meta = append(l.meta, [2]string{k, m.meta[k]})
	}
	l.metaCount = uint32(len(l.meta))
	for i, w := range m.weights() {
		l.weights[i] = slices.Clone(w)
	}
	return l
}

func (l layout) bytes() []byte {
	le := binary.LittleEndian
	b := binfile.Begin(Magic, l.version, 0)
	b = le.AppendUint32(le.AppendUint32(le.AppendUint32(b, l.sparse), l.dense), l.hidden)
	b = le.AppendUint32(b, l.metaCount)
	for _, kv := range l.meta {
		for _, s := range kv {
			b = append(le.AppendUint32(b, uint32(len(s))), s...)
		}
	}
	b = le.AppendUint32(le.AppendUint32(le.AppendUint32(b, l.epochs), l.batch), l.shards)
	b = le.AppendUint64(le.AppendUint64(b, math.Float64bits(l.lr)), math.Float64bits(l.l2))
	b = le.AppendUint64(b, uint64(l.seed))
	if l.version >= 2 {
		b = le.AppendUint32(b, l.flags)
	}
	for _, w := range l.weights {
		for _, x := range w {
			b = le.AppendUint32(b, math.Float32bits(x))
		}
	}
	return binfile.Seal(append(b, l.trailer...))
}

// TestFileLayout: Save writes the fields file.go documents, in its order
// (the layout twin's bytes are Save's).
func TestFileLayout(t *testing.T) {
	data, m := smallModel(t)
	if !bytes.Equal(layoutOf(m).bytes(), data) {
		t.Fatal("Save's bytes are not the documented layout's")
	}
}

// TestVersion1: a file of version 1 (no flags: made before Config.Anneal)
// loads as a model fitted without annealing, the same weights; unknown
// flags are refused.
func TestVersion1(t *testing.T) {
	_, m := smallModel(t)
	l := layoutOf(m)
	l.version, l.flags = 1, 0
	got, err := Load(bytes.NewReader(l.bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Config().Anneal || !m.Config().Anneal || !slices.Equal(got.s, m.s) || !slices.Equal(got.w2, m.w2) {
		t.Errorf("version 1: anneal %v (the model's %v), weights equal %v", got.Config().Anneal, m.Config().Anneal, slices.Equal(got.s, m.s))
	}
	l = layoutOf(m)
	l.flags = 6
	if _, err := Load(bytes.NewReader(l.bytes())); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "unknown flags 0x6") {
		t.Errorf("flags 6: %v, want ErrCorrupt, unknown flags", err)
	}
}

// TestLoadErrors: a file that is not a network file of this format is
// refused with an error wrapping ErrCorrupt or ErrFormatVersion, never a
// panic.
func TestLoadErrors(t *testing.T) {
	data, m := smallModel(t)
	t.Run("BadMagic", func(t *testing.T) {
		b := slices.Concat([]byte("OCVFORST"), data[8:])
		if _, err := Load(bytes.NewReader(b)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "not a network model (bad magic)") {
			t.Fatalf("a forest's magic: err = %v, want ErrCorrupt, bad magic", err)
		}
	})
	t.Run("ErrFormatVersion", func(t *testing.T) {
		for _, v := range []uint32{0, 3, math.MaxUint32} {
			l := layoutOf(m)
			l.version = v
			if _, err := Load(bytes.NewReader(l.bytes())); !errors.Is(err, ErrFormatVersion) {
				t.Errorf("version %d: err = %v, want ErrFormatVersion", v, err)
			}
		}
	})
	// Every truncation and flipped byte of the envelope: binfile's
	// TestOpenErrors; here, that Load gives them as its own errors.
	t.Run("Truncated", func(t *testing.T) {
		for _, n := range []int{0, 7, binfile.HeaderSize - 1, binfile.HeaderSize, binfile.HeaderSize + 13, len(data) / 2, len(data) - 5, len(data) - 1} {
			if _, err := Load(bytes.NewReader(data[:n])); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "truncated") {
				t.Errorf("first %d of %d bytes: err = %v, want ErrCorrupt, truncated", n, len(data), err)
			}
		}
	})
	t.Run("FlippedByte", func(t *testing.T) {
		for _, c := range []struct {
			at   int
			kind error
			want string
		}{
			{binfile.HeaderSize, ErrCorrupt, "checksum mismatch"}, // sparse columns
			{len(data) / 2, ErrCorrupt, "checksum mismatch"},      // a weight
			{len(data) - 5, ErrCorrupt, "checksum mismatch"},      // b2
			{len(data) - 1, ErrCorrupt, "checksum mismatch"},      // the checksum
			{8, ErrFormatVersion, "version 18 "},
			{15, ErrCorrupt, "truncated"},           // the length, 2^28 bytes more
			{19, ErrCorrupt, "payload length 1152"}, // the length, 2^60 more
		} {
			b := slices.Clone(data)
			b[c.at] ^= 0x10
			if _, err := Load(bytes.NewReader(b)); !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("byte %d flipped: err = %v, want %v saying %q", c.at, err, c.kind, c.want)
			}
		}
	})
	t.Run("ReadError", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := Load(iotest.ErrReader(boom)); err == nil {
			t.Fatal("a failing reader gave a model")
		}
	})
	t.Run("TrailingDataIgnored", func(t *testing.T) {
		// Load reads exactly one model, so models can be embedded in a
		// larger stream.
		r := bytes.NewReader(append(slices.Clone(data), "more"...))
		if _, err := Load(r); err != nil || r.Len() != 4 {
			t.Fatalf("Load with trailing data: %v, %d bytes left, want 4", err, r.Len())
		}
	})
}

// TestLoadInconsistent: files with a valid envelope and checksum whose
// fields disagree, or hold values no fit makes, are refused with an
// error wrapping ErrCorrupt that says why.
func TestLoadInconsistent(t *testing.T) {
	_, m := smallModel(t)
	if _, err := Load(bytes.NewReader(layoutOf(m).bytes())); err != nil {
		t.Fatalf("the twin's file of a model: %v", err)
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name string
		edit func(l *layout)
		want string
	}{
		{"hidden 0", func(l *layout) {
			l.hidden, l.weights[0], l.weights[1], l.weights[2], l.weights[5] = 0, nil, nil, nil, nil
		}, "hidden units 0"},
		{"hidden over MaxHidden", func(l *layout) {
			l.sparse, l.dense, l.hidden = 0, 0, MaxHidden+1
			l.weights = [7][]float32{nil, nil, make([]float32, MaxHidden+1), nil, nil, make([]float32, MaxHidden+1), {0}}
		}, "hidden units 1025"},
		{"sparse over MaxColumns", func(l *layout) {
			l.sparse, l.dense, l.hidden = MaxColumns+1, 0, 1
			l.weights = [7][]float32{make([]float32, MaxColumns+1), nil, {0}, nil, nil, {0}, {0}}
		}, "columns 1048577 sparse"},
		{"a sparse column more than the weights", func(l *layout) { l.sparse++ }, "exceeds"},
		{"a hidden unit less than the weights", func(l *layout) { l.hidden-- }, "trailing bytes"},
		{"a dense input more than the weights", func(l *layout) { l.dense++ }, "exceeds"},
		{"a weight missing", func(l *layout) { l.weights[6] = nil }, "exceeds"},
		{"a trailing byte", func(l *layout) { l.trailer = []byte{0} }, "1 trailing bytes"},
		{"huge sparse count", func(l *layout) { l.sparse = math.MaxUint32 }, "exceeds"},
		{"huge meta count", func(l *layout) { l.metaCount = math.MaxUint32 }, "count 4294967295 exceeds"},
		{"meta keys out of order", func(l *layout) { slices.Reverse(l.meta) }, "out of order"},
		{"meta key twice", func(l *layout) { l.meta[1] = l.meta[0] }, "out of order"},
		{"meta key empty", func(l *layout) { l.meta[0][0] = "" }, `meta key ""`},
		{"S NaN", func(l *layout) { l.weights[0][3] = nan }, "not finite"},
		{"D infinite", func(l *layout) { l.weights[1][0] = -inf }, "not finite"},
		{"b1 NaN", func(l *layout) { l.weights[2][1] = nan }, "not finite"},
		{"μ infinite", func(l *layout) { l.weights[3][0] = inf }, "not finite"},
		{"W2 infinite", func(l *layout) { l.weights[5][7] = inf }, "not finite"},
		{"b2 NaN", func(l *layout) { l.weights[6][0] = nan }, "not finite"},
		{"σ 0", func(l *layout) { l.weights[4][2] = 0 }, "standard deviation of 0"},
		{"σ negative", func(l *layout) { l.weights[4][0] = -1 }, "standard deviation of -1"},
		{"σ NaN", func(l *layout) { l.weights[4][1] = nan }, "standard deviation of NaN"},
		{"σ infinite", func(l *layout) { l.weights[4][3] = inf }, "standard deviation of +Inf"},
		{"config batch 0", func(l *layout) { l.batch = 0 }, "batch 0"},
		{"config learning rate NaN", func(l *layout) { l.lr = math.NaN() }, "learning rate NaN"},
		{"config shards 0", func(l *layout) { l.shards = 0 }, "shards 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := layoutOf(m)
			tt.edit(&l)
			if _, err := Load(bytes.NewReader(l.bytes())); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrCorrupt saying %q", err, tt.want)
			}
		})
	}
}

// FuzzLoad: Load never panics, whatever the bytes.
func FuzzLoad(f *testing.F) {
	data, _ := smallModel(f)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(Magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		Load(bytes.NewReader(b))
		// Also with the length and checksum repaired, so that the fuzzer
		// reaches the decoder and the consistency checks.
		if len(b) >= binfile.HeaderSize+4 {
			Load(bytes.NewReader(binfile.Seal(slices.Clone(b[:len(b)-4]))))
		}
	})
}
