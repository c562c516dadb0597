package forest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"testing"
)

func smallModel(t testing.TB) ([]byte, *Model) {
	t.Helper()
	X, labels := synth(11, 600, 4)
	cfg := smallConfig()
	cfg.Trees = 4
	cfg.MaxDepth = 5
	cfg.FeatureNames = []string{"x0", "x1", "noise", "small int"}
	m := mustFit(t, X, labels, nil, cfg)
	return mustSave(t, m), m
}

func TestSaveLoadRoundTrip(t *testing.T) {
	X, labels := synth(12, 5000, 12)
	cfg := smallConfig()
	cfg.FeatureNames = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "ł"}
	m := mustFit(t, X, labels, nil, cfg)
	data := mustSave(t, m)
	got, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if again := mustSave(t, got); !bytes.Equal(again, data) {
		t.Fatal("saving the loaded model gave different bytes")
	}
	if !slices.Equal(got.FeatureNames(), cfg.FeatureNames) {
		t.Errorf("FeatureNames %q, want %q", got.FeatureNames(), cfg.FeatureNames)
	}
	if gc, mc := got.Config(), m.Config(); gc.Seed != cfg.Seed || gc.Trees != mc.Trees || gc.Bins != mc.Bins {
		t.Errorf("loaded config %+v, want %+v", gc, mc)
	}
	Xt, _ := synth(13, 5000, 12)
	for i := range 5000 {
		x := Xt.RawRowView(i)
		if a, b := m.Predict(x), got.Predict(x); !slices.Equal(a, b) {
			t.Fatalf("row %d: predictions %v before save, %v after load", i, a, b)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	data, _ := smallModel(t)
	t.Run("ErrFormatVersion", func(t *testing.T) {
		b := slices.Clone(data)
		binary.LittleEndian.PutUint32(b[len(magic):], formatVersion+1)
		if _, err := Load(bytes.NewReader(b)); !errors.Is(err, ErrFormatVersion) {
			t.Fatalf("err = %v, want ErrFormatVersion", err)
		}
	})
	t.Run("BadMagic", func(t *testing.T) {
		b := slices.Clone(data)
		b[0] = 'X'
		if _, err := Load(bytes.NewReader(b)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want ErrCorrupt", err)
		}
	})
	t.Run("Truncated", func(t *testing.T) {
		for n := range len(data) {
			if _, err := Load(bytes.NewReader(data[:n])); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("first %d of %d bytes: err = %v, want ErrCorrupt", n, len(data), err)
			}
		}
	})
	t.Run("FlippedByte", func(t *testing.T) {
		for i := range data {
			b := slices.Clone(data)
			b[i] ^= 0x10
			_, err := Load(bytes.NewReader(b))
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrFormatVersion) {
				t.Fatalf("byte %d flipped: err = %v, want ErrCorrupt", i, err)
			}
		}
	})
	t.Run("ValidChecksumBadTree", func(t *testing.T) {
		// A child pointing backwards would loop; check must catch it even
		// when the checksum is right.
		_, m := smallModel(t)
		for i := range m.nodes {
			if m.leafOf[i] < 0 {
				m.nodes[i].child = int32(i)
				break
			}
		}
		if _, err := Load(bytes.NewReader(mustSave(t, m))); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want ErrCorrupt", err)
		}
	})
	t.Run("TrailingDataIgnored", func(t *testing.T) {
		// Load reads exactly one model, so models can be embedded in a
		// larger stream.
		if _, err := Load(bytes.NewReader(append(slices.Clone(data), "more"...))); err != nil {
			t.Fatalf("Load with trailing data: %v", err)
		}
	})
}

func FuzzLoad(f *testing.F) {
	data, _ := smallModel(f)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		loadAndPredict(b)
		// Also with the length and checksum repaired, so that the fuzzer
		// reaches the decoder and the consistency checks.
		if len(b) >= headerSize+4 {
			b = slices.Clone(b)
			binary.LittleEndian.PutUint64(b[len(magic)+4:], uint64(len(b)-headerSize-4))
			binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
			loadAndPredict(b)
		}
	})
}

func loadAndPredict(b []byte) {
	m, err := Load(bytes.NewReader(b))
	if err != nil || m.NumFeatures() > 1<<16 {
		return
	}
	m.Predict(make([]float64, m.NumFeatures()))
}
