package forest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"testing"
	"testing/iotest"

	"ocvist/data"
	"ocvist/internal/binfile"
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
		if len(b) >= binfile.HeaderSize+4 {
			loadAndPredict(binfile.Seal(slices.Clone(b[:len(b)-4])))
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

func TestMetaRoundTrip(t *testing.T) {
	X, labels := synth(14, 400, 4)
	cfg := smallConfig()
	cfg.Trees = 2
	cfg.Meta = map[string]string{"radius": "3", "feature_set": "1", "rule": "standard", "empty": ""}
	m := mustFit(t, X, labels, nil, cfg)
	cfg.Meta["radius"] = "changed after the fit"
	data := mustSave(t, m)
	got, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"radius": "3", "feature_set": "1", "rule": "standard", "empty": ""}
	if !maps.Equal(got.Meta(), want) || !maps.Equal(got.Config().Meta, want) {
		t.Errorf("Meta %v, Config().Meta %v; want %v", got.Meta(), got.Config().Meta, want)
	}
	if again := mustSave(t, got); !bytes.Equal(again, data) {
		t.Error("saving the loaded model gave different bytes")
	}
	got.Meta()["radius"] = "4" // a copy
	if got.Meta()["radius"] != "3" {
		t.Error("Meta returned the model's own map")
	}
	cfg.Meta = map[string]string{"": "x"}
	if err := cfg.Validate(); err == nil {
		t.Error("an empty Meta key was accepted")
	}
}

// version1 rewrites a version-2 file of a model without metadata (names
// set) into the version-1 layout: no meta field.
func version1(t *testing.T, data []byte, names []string) []byte {
	t.Helper()
	at := binfile.HeaderSize + 12
	for _, n := range names {
		at += 4 + len(n)
	}
	if binary.LittleEndian.Uint32(data[at:]) != 0 {
		t.Fatal("the model has metadata")
	}
	b := slices.Concat(data[:at], data[at+4:len(data)-4])
	binary.LittleEndian.PutUint32(b[len(magic):], 1)
	return binfile.Seal(b)
}

// TestLoadVersion1: files written before metadata existed (the shipped
// model among them) load as models without metadata that predict the same.
func TestLoadVersion1(t *testing.T) {
	data, m := smallModel(t)
	old := version1(t, data, m.FeatureNames())
	got, err := Load(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta() != nil || !slices.Equal(got.FeatureNames(), m.FeatureNames()) {
		t.Errorf("meta %v, names %q", got.Meta(), got.FeatureNames())
	}
	if again := mustSave(t, got); !bytes.Equal(again, data) {
		t.Error("a version-1 model saves differently from the same model fitted now")
	}
}

func TestLoadMetaOutOfOrder(t *testing.T) {
	X, labels := synth(15, 200, 4)
	cfg := smallConfig()
	cfg.Trees = 1
	cfg.Meta = map[string]string{"a": "1", "b": "2"}
	data := mustSave(t, mustFit(t, X, labels, nil, cfg))
	i := bytes.Index(data, []byte("\x01\x00\x00\x00a\x01\x00\x00\x001\x01\x00\x00\x00b"))
	if i < 0 {
		t.Fatal("meta not found in the file")
	}
	data[i+4], data[i+14] = 'b', 'a'
	if _, err := Load(bytes.NewReader(binfile.Seal(data[:len(data)-4]))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("keys out of order: err = %v, want ErrCorrupt", err)
	}
}

// TestLoadErrorMessages: each way a file fails to load gives its one
// line, wrapping ErrCorrupt or ErrFormatVersion as the kind says; the
// version is judged from the header alone, before the payload is read,
// and a failing reader's error is passed on as it is.
func TestLoadErrorMessages(t *testing.T) {
	data, _ := smallModel(t)
	header := func(version uint32, length uint64) []byte {
		b := binary.LittleEndian.AppendUint32([]byte(magic), version)
		return binary.LittleEndian.AppendUint64(b, length)
	}
	boom := errors.New("boom")
	flipped := slices.Clone(data)
	flipped[binfile.HeaderSize+3] ^= 1
	tests := []struct {
		name string
		r    io.Reader
		kind error
		want string
	}{
		{"empty", bytes.NewReader(nil), ErrCorrupt, "forest: corrupt model file: truncated"},
		{"short header", bytes.NewReader(data[:binfile.HeaderSize-1]), ErrCorrupt, "forest: corrupt model file: truncated"},
		{"bad magic", bytes.NewReader(slices.Concat([]byte("OCVMLPNT"), data[8:])), ErrCorrupt, "forest: corrupt model file: not a forest model (bad magic)"},
		{"version 3, header only", bytes.NewReader(header(3, 1<<40)), ErrFormatVersion, "forest: unsupported model format version 3 (this build reads 1 and 2)"},
		{"version 0, header only", bytes.NewReader(header(0, 10)), ErrFormatVersion, "forest: unsupported model format version 0 (this build reads 1 and 2)"},
		{"version 3, then a read error", io.MultiReader(bytes.NewReader(header(3, 10)), iotest.ErrReader(boom)), ErrFormatVersion, "forest: unsupported model format version 3 (this build reads 1 and 2)"},
		{"payload too large", bytes.NewReader(header(2, maxPayload+1)), ErrCorrupt, "forest: corrupt model file: payload length 17179869185 too large"},
		{"payload truncated", bytes.NewReader(data[:len(data)-1]), ErrCorrupt, fmt.Sprintf("forest: corrupt model file: truncated (%d of %d bytes)", len(data)-1, len(data))},
		{"checksum", bytes.NewReader(flipped), ErrCorrupt, "forest: corrupt model file: checksum mismatch"},
		{"read error in the header", iotest.ErrReader(boom), boom, "forest: load: boom"},
		{"read error in the payload", io.MultiReader(bytes.NewReader(data[:binfile.HeaderSize+5]), iotest.ErrReader(boom)), boom, "forest: load: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.r)
			if !errors.Is(err, tt.kind) || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q (%v)", err, tt.want, tt.kind)
			}
		})
	}
}

// TestShippedFilesResave: the forests the project ships load and save
// again byte for byte; the one of format version 1, saved again as
// version 2 and written back in version 1's layout, is the shipped file.
// (data/value.ocf is a value network: policy's TestShippedModels resaves
// it.)
func TestShippedFilesResave(t *testing.T) {
	for _, f := range []struct {
		name string
		data []byte
	}{{"model.ocf", data.Model}, {"model-renju.ocf", data.RenjuModel},
		{"value-renju.ocf", data.RenjuValue}, {"model-2026-11-21.ocf", data.Model20261121},
		{"forest.ocf", data.Forest}} {
		m, err := Load(bytes.NewReader(f.data))
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		again := mustSave(t, m)
		if binary.LittleEndian.Uint32(f.data[len(magic):]) == 1 {
			again = version1(t, again, m.FeatureNames())
		}
		if !bytes.Equal(again, f.data) {
			t.Errorf("%s saves different bytes after Load", f.name)
		}
	}
}
