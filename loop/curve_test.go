package loop

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
)

// TestWriteCurve: the curve of three generations (one rejected, one
// perfect score at the Elo bound) is a decodable 8-inch PNG or an SVG with
// the generation ticks and the reference line's label; no records is an
// error.
func TestWriteCurve(t *testing.T) {
	var recs []Record
	for g := 1; g <= 3; g++ {
		r := Record{Gen: g, Top1: 0.4 + 0.05*float64(g), Adopted: g != 2}
		for k, name := range []string{"random", "patterns", "gen 0"} {
			e := 100 * float64(g+k)
			r.Anchors = append(r.Anchors, MatchRecord{Against: name, Elo: e, EloLow: e - 80, EloHigh: e + 80})
		}
		recs = append(recs, r)
	}
	recs[2].Anchors[0] = MatchRecord{Against: "random", Elo: EloBound, EloLow: 600, EloHigh: EloBound}
	var buf bytes.Buffer
	if err := WriteCurve(&buf, recs, ".png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil || img.Bounds().Dx() < 500 {
		t.Fatalf("png: %v, %v", err, img)
	}
	buf.Reset()
	if err := WriteCurve(&buf, recs, ".SVG"); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	for _, want := range []string{"<svg", ">3<", "as strong as the anchor", "against patterns", "rejected by the gate"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if err := WriteCurve(&buf, nil, ".png"); err == nil {
		t.Error("no records drew a chart")
	}
}
