package main

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"ocvist/loop"
	"ocvist/store"
)

// The learning loop's curve (train report):
// panels sharing the generation axis, one quantity each. Top: the engine's
// Elo (the search over the generation's models at Config.GateNodes)
// against the fixed anchors with 95% intervals, a labelled line at 0 (as
// strong as the anchor); generations the gate adopted are filled discs,
// rejected ones crosses (no such panel for records made before the loop
// measured its engines). Then the same for the pure policy. Bottom: the
// held-out top-1 agreement with the teacher and the value model's AUC.

var anchorColours = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// genTicks marks every generation with an integer.
type genTicks struct{}

func (genTicks) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for g := int(lo + 0.999); float64(g) <= hi; g++ {
		t = append(t, plot.Tick{Value: float64(g), Label: fmt.Sprint(g)})
	}
	return t
}

// writeCurve draws the curve of recs (at least one) as PNG, or as SVG when
// ext is ".svg".
func writeCurve(w io.Writer, recs []loop.Record, ext string) error {
	if len(recs) == 0 {
		return errors.New("loop: no generations to draw")
	}
	var panels []*plot.Plot
	if slices.ContainsFunc(recs, func(r loop.Record) bool { return len(r.Engine) > 0 }) {
		p, err := eloPanel(recs, "the engine (search over the generation's models)", func(r loop.Record) []loop.MatchRecord { return r.Engine })
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	elo, err := eloPanel(recs, "the pure policy", func(r loop.Record) []loop.MatchRecord { return r.Anchors })
	if err != nil {
		return err
	}
	top1, err := top1Panel(recs)
	if err != nil {
		return err
	}
	panels = append(panels, elo, top1)
	c := canvas(ext, 8*vg.Inch, vg.Length(4*len(panels))*vg.Inch)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(6), PadY: vg.Points(12)}
	rows := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		rows[i] = []*plot.Plot{p}
	}
	cells := plot.Align(rows, tiles, draw.New(c))
	for i, p := range panels {
		p.Draw(cells[i][0])
	}
	_, err = c.WriteTo(w)
	return err
}

// genAxis makes p's X axis the generations first to last, half a
// generation beyond each, each marked with its number. It is set after
// the data were added, which widen the axes to their own range.
func genAxis(p *plot.Plot, first, last int) {
	p.X.Min, p.X.Max = float64(first)-0.5, float64(last)+0.5
	p.X.Tick.Marker = genTicks{}
	p.X.Label.Text = "generation"
}

// canvas is a PNG canvas, or an SVG one for ext ".svg".
func canvas(ext string, w, h vg.Length) interface {
	vg.CanvasSizer
	io.WriterTo
} {
	if strings.EqualFold(ext, ".svg") {
		return vgsvg.New(w, h)
	}
	return vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
}

// eloPanel is a panel of Elo against the anchors of the matches of
// recs that of picks: a series per anchor, in the order of their first
// appearance, over the generations that measured it.
func eloPanel(recs []loop.Record, who string, of func(loop.Record) []loop.MatchRecord) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Ocvist learning loop: " + who + " against fixed anchors"
	p.Y.Label.Text = fmt.Sprintf("Elo (95%% interval; ±%d = perfect score)", loop.EloBound)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
	zero, err := plotter.NewLine(plotter.XYs{{X: float64(recs[0].Gen) - 0.5, Y: 0}, {X: float64(recs[len(recs)-1].Gen) + 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(zero)
	p.Legend.Add("0: as strong as the anchor", zero)
	for k, name := range anchorNames(recs, of) {
		if err := anchorSeries(p, recs, of, k, name); err != nil {
			return nil, err
		}
	}
	lo, hi := 0.0, 0.0 // the 0 line is always in view
	for _, r := range recs {
		for _, m := range of(r) {
			lo, hi = min(lo, m.EloLow), max(hi, m.EloHigh)
		}
	}
	genAxis(p, recs[0].Gen, recs[len(recs)-1].Gen)
	p.Y.Min, p.Y.Max = lo-50, hi+0.45*(hi-lo+100) // the legend sits above the data
	return p, nil
}

// anchorNames are the anchors of recs in the order of their first
// appearance.
func anchorNames(recs []loop.Record, of func(loop.Record) []loop.MatchRecord) []string {
	var names []string
	for _, r := range recs {
		for _, m := range of(r) {
			if !slices.Contains(names, m.Against) {
				names = append(names, m.Against)
			}
		}
	}
	return names
}

// anchorSeries draws the Elo against anchor name (the k-th) with its
// intervals and the gate's marks, for the generations that measured it;
// the first series names the marks in the legend.
func anchorSeries(p *plot.Plot, recs []loop.Record, of func(loop.Record) []loop.MatchRecord, k int, name string) error {
	var pts plotter.XYs
	var errs plotter.YErrors
	var adopted []bool
	for _, r := range recs {
		ms := of(r)
		i := slices.IndexFunc(ms, func(m loop.MatchRecord) bool { return m.Against == name })
		if i < 0 {
			continue
		}
		m := ms[i]
		pts = append(pts, plotter.XY{X: float64(r.Gen) + 0.08*float64(k-1), Y: m.Elo})
		errs = append(errs, struct{ Low, High float64 }{m.Elo - m.EloLow, m.EloHigh - m.Elo})
		adopted = append(adopted, r.Adopted)
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	line.Color = anchorColours[k%len(anchorColours)]
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return err
	}
	bars.Color = line.Color
	p.Add(line, bars)
	p.Legend.Add("against "+name, line)
	for _, m := range marks(pts, adopted, line.Color) {
		p.Add(m.scatter)
		if k == 0 {
			p.Legend.Add(m.label, m.scatter)
		}
	}
	return nil
}

// mark is the scatter of the adopted or of the rejected generations.
type mark struct {
	label   string
	scatter *plotter.Scatter
}

// marks are the points of adopted generations (discs) and of rejected
// ones (crosses); a kind without points has no mark (and no legend
// entry).
func marks(pts plotter.XYs, adopted []bool, c color.Color) []mark {
	var yes, no plotter.XYs
	for i, a := range adopted {
		if a {
			yes = append(yes, pts[i])
		} else {
			no = append(no, pts[i])
		}
	}
	var out []mark
	for _, m := range []struct {
		label string
		pts   plotter.XYs
		glyph draw.GlyphStyle
	}{
		{"adopted by the gate", yes, draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}},
		{"rejected by the gate", no, draw.GlyphStyle{Color: c, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}},
	} {
		if len(m.pts) == 0 {
			continue
		}
		s, _ := plotter.NewScatter(m.pts) // cannot fail: points, all finite
		s.GlyphStyle = m.glyph
		out = append(out, mark{m.label, s})
	}
	return out
}

// top1Panel is the bottom panel: the held-out top-1 agreement with the
// teacher and the value model's held-out AUC, of the generations where
// each is defined (an undefined one is recorded as −1).
func top1Panel(recs []loop.Record) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = "held out: top-1 agreement, value AUC"
	p.Legend.Top = true
	for k, s := range []struct {
		name string
		of   func(loop.Record) float64
	}{
		{"policy: top-1 agreement with the teacher", func(r loop.Record) float64 { return r.Top1 }},
		{"value model: AUC (who won)", func(r loop.Record) float64 { return r.ValueAUC }},
	} {
		var pts plotter.XYs
		for _, r := range recs {
			if v := s.of(r); v >= 0 {
				pts = append(pts, plotter.XY{X: float64(r.Gen), Y: v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = anchorColours[k], anchorColours[k]
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
	}
	genAxis(p, recs[0].Gen, recs[len(recs)-1].Gen)
	p.Y.Min, p.Y.Max = 0, 1
	return p, nil
}

// writeGenerationsCurve draws the v1 loop's generations (at least one;
// train run -generations, without details): the gate score against the previous
// generation with its interval and the held-out AUC, as PNG or SVG (ext).
func writeGenerationsCurve(w io.Writer, gens []store.Generation, ext string) error {
	p, err := generationsCurve(gens)
	if err != nil {
		return err
	}
	c := canvas(ext, 8*vg.Inch, 5*vg.Inch)
	p.Draw(draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

func generationsCurve(gens []store.Generation) (*plot.Plot, error) {
	if len(gens) == 0 {
		return nil, errors.New("loop: no generations to draw")
	}
	p := plot.New()
	p.Title.Text = "Ocvist learning curve"
	p.Y.Label.Text = "gate score vs previous / held-out AUC"
	p.Y.Min, p.Y.Max = 0, 1
	score := make(plotter.XYs, len(gens))
	auc := make(plotter.XYs, len(gens))
	errs := make(plotter.YErrors, len(gens))
	for i, g := range gens {
		score[i] = plotter.XY{X: float64(g.Gen), Y: g.Score}
		auc[i] = plotter.XY{X: float64(g.Gen), Y: g.AUC}
		errs[i] = struct{ Low, High float64 }{g.Score - g.ScoreLow, g.ScoreHigh - g.Score}
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{score, errs})
	if err != nil {
		return nil, err
	}
	if err := plotutil.AddLinePoints(p, "gate score", score, "held-out AUC", auc); err != nil {
		return nil, err
	}
	first, last := gens[0].Gen, gens[len(gens)-1].Gen
	half, err := plotter.NewLine(plotter.XYs{{X: float64(first) - 0.5, Y: 0.5}, {X: float64(last) + 0.5, Y: 0.5}})
	if err != nil {
		return nil, err
	}
	half.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(bars, half)
	p.Legend.Top = true
	genAxis(p, first, last)
	p.Y.Min, p.Y.Max = 0, 1
	return p, nil
}
