package main

import (
	"bytes"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"ocvist/loop"
	"ocvist/store"
)

// TestWriteCurve: the curve of three generations (one rejected, one
// perfect score at the Elo bound) is a decodable 8-inch PNG or an SVG with
// the generation ticks, the reference line's label, the engine's and the
// pure policy's panels and the value AUC; no records is an error.
func TestWriteCurve(t *testing.T) {
	var recs []loop.Record
	for g := 1; g <= 3; g++ {
		r := loop.Record{Gen: g, Top1: 0.4 + 0.05*float64(g), Adopted: g != 2}
		for k, name := range []string{"random", "patterns", "gen 0"} {
			e := 100 * float64(g+k)
			r.Anchors = append(r.Anchors, loop.MatchRecord{Against: name, Elo: e, EloLow: e - 80, EloHigh: e + 80})
		}
		r.Engine = []loop.MatchRecord{{Against: "shipped", Elo: -50, EloLow: -90, EloHigh: -10}}
		r.ValueAUC = 0.8
		recs = append(recs, r)
	}
	recs[2].Anchors[0] = loop.MatchRecord{Against: "random", Elo: loop.EloBound, EloLow: 600, EloHigh: loop.EloBound}
	var buf bytes.Buffer
	if err := writeCurve(&buf, recs, ".png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil || img.Bounds().Dx() < 500 {
		t.Fatalf("png: %v, %v", err, img)
	}
	buf.Reset()
	if err := writeCurve(&buf, recs, ".SVG"); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	for _, want := range []string{"<svg", ">3<", "as strong as the anchor", "against patterns", "rejected by the gate",
		"the engine (search over the generation", "against shipped", "the pure policy against", "value model: AUC"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if err := writeCurve(&buf, nil, ".png"); err == nil {
		t.Error("no records drew a chart")
	}
}

// curveRecs are gens generations from first with the three anchors, each
// adopted as adopted(g) says; the Elo against anchor k is 100(g+k) ± 80.
func curveRecs(first, gens int, adopted func(g int) bool) []loop.Record {
	var recs []loop.Record
	for g := first; g < first+gens; g++ {
		r := loop.Record{Gen: g, Top1: 0.4 + 0.05*float64(g-first), Adopted: adopted(g)}
		for k, name := range []string{"random", "patterns", "gen 0"} {
			e := 100 * float64(g+k)
			r.Anchors = append(r.Anchors, loop.MatchRecord{Against: name, Elo: e, EloLow: e - 80, EloHigh: e + 80})
		}
		recs = append(recs, r)
	}
	return recs
}

// TestCurveAxes: both panels' axes span the generations and the data,
// whatever the gate decided and however few the generations or series:
// the generation axis reaches half a generation beyond the first and the
// last, the Elo axis from 50 below the lowest interval end (or the 0
// line) to the highest (or 0) plus room for the legend, the top-1 axis
// [0, 1] (an undefined top-1, recorded as −1, is not drawn). The legend
// names the gate's marks that are drawn.
func TestCurveAxes(t *testing.T) {
	yes := func(int) bool { return true }
	no := func(int) bool { return false }
	oneSeries := curveRecs(3, 2, yes)
	for i := range oneSeries {
		oneSeries[i].Anchors = oneSeries[i].Anchors[1:2]
	}
	undefined := curveRecs(1, 3, no)
	undefined[0].Top1 = -1
	below := curveRecs(1, 1, no)
	for k := range below[0].Anchors {
		below[0].Anchors[k] = loop.MatchRecord{Against: below[0].Anchors[k].Against, Elo: -loop.EloBound, EloLow: -loop.EloBound, EloHigh: -600}
	}
	for _, tt := range []struct {
		name           string
		recs           []loop.Record
		xMin, xMax     float64
		eloMin, eloMax float64
	}{
		{"all adopted", curveRecs(1, 3, yes), 0.5, 3.5, -50, 580 + 0.45*(580+100)},
		{"all rejected", curveRecs(1, 3, no), 0.5, 3.5, -50, 580 + 0.45*(580+100)},
		{"one generation adopted", curveRecs(4, 1, yes), 3.5, 4.5, -50, 680 + 0.45*(680+100)},
		{"one generation rejected", curveRecs(4, 1, no), 3.5, 4.5, -50, 680 + 0.45*(680+100)},
		{"one series", oneSeries, 2.5, 4.5, -50, 580 + 0.45*(580+100)},
		{"undefined top-1", undefined, 0.5, 3.5, -50, 580 + 0.45*(580+100)},
		{"below the anchor", below, 0.5, 1.5, -1000 - 50, 0 + 0.45*(0+1000+100)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			elo, err := eloPanel(tt.recs, "the pure policy", func(r loop.Record) []loop.MatchRecord { return r.Anchors })
			if err != nil {
				t.Fatal(err)
			}
			top1, err := top1Panel(tt.recs)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []*plot.Plot{elo, top1} {
				if p.X.Min != tt.xMin || p.X.Max != tt.xMax {
					t.Errorf("%q: generation axis [%g, %g], want [%g, %g]", p.Y.Label.Text, p.X.Min, p.X.Max, tt.xMin, tt.xMax)
				}
			}
			if math.Abs(elo.Y.Min-tt.eloMin) > 1e-9 || math.Abs(elo.Y.Max-tt.eloMax) > 1e-9 {
				t.Errorf("Elo axis [%g, %g], want [%g, %g]", elo.Y.Min, elo.Y.Max, tt.eloMin, tt.eloMax)
			}
			if top1.Y.Min != 0 || top1.Y.Max != 1 {
				t.Errorf("top-1 axis [%g, %g], want [0, 1]", top1.Y.Min, top1.Y.Max)
			}
			var buf bytes.Buffer
			if err := writeCurve(&buf, tt.recs, ".svg"); err != nil {
				t.Fatal(err)
			}
			var adopted, rejected bool
			for _, r := range tt.recs {
				adopted, rejected = adopted || r.Adopted, rejected || !r.Adopted
			}
			for label, want := range map[string]bool{"adopted by the gate": adopted, "rejected by the gate": rejected} {
				if got := strings.Contains(buf.String(), label); got != want {
					t.Errorf("legend has %q: %v, want %v", label, got, want)
				}
			}
		})
	}
}

// TestGenerationsCurveAxes: the v1 loop's chart spans its generations
// half a generation beyond the first and the last, one generation too,
// and scores in [0, 1].
func TestGenerationsCurveAxes(t *testing.T) {
	for _, gens := range [][]store.Generation{
		{{Gen: 3, Score: 0.6, ScoreLow: 0.5, ScoreHigh: 0.7, AUC: 0.55}},
		{{Gen: 1, Score: 0.4, ScoreLow: 0.3, ScoreHigh: 0.5, AUC: 0.53}, {Gen: 2, Score: 0.6, ScoreLow: 0.5, ScoreHigh: 0.7, AUC: 0.55}},
	} {
		p, err := generationsCurve(gens)
		if err != nil {
			t.Fatal(err)
		}
		xMin, xMax := float64(gens[0].Gen)-0.5, float64(gens[len(gens)-1].Gen)+0.5
		if p.X.Min != xMin || p.X.Max != xMax || p.Y.Min != 0 || p.Y.Max != 1 {
			t.Errorf("%d generations: axes [%g, %g] × [%g, %g], want [%g, %g] × [0, 1]", len(gens), p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, xMin, xMax)
		}
		if err := writeGenerationsCurve(io.Discard, gens, ".png"); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeGenerationsCurve(io.Discard, nil, ".png"); err == nil {
		t.Error("no generations drew a chart")
	}
}
