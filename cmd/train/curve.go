package main

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"ocvist/loop"
)

// The learning loop's curve (train report on a database of "train loop"):
// two panels sharing the generation axis, one quantity each. Top: the pure
// policy's Elo against the fixed anchors with 95% intervals, a labelled
// line at 0 (as strong as the anchor); generations the gate adopted are
// filled discs, rejected ones crosses. Bottom: the held-out top-1
// agreement with the teacher.

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

func loopCurve(recs []loop.Record, path string) error {
	elo, err := eloPanel(recs)
	if err != nil {
		return err
	}
	top1, err := top1Panel(recs)
	if err != nil {
		return err
	}
	for _, p := range []*plot.Plot{elo, top1} {
		p.X.Min, p.X.Max = float64(recs[0].Gen)-0.5, float64(recs[len(recs)-1].Gen)+0.5
		p.X.Tick.Marker = genTicks{}
		p.X.Label.Text = "generation"
	}
	w, h := 8*vg.Inch, 8*vg.Inch
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	if strings.ToLower(filepath.Ext(path)) == ".svg" {
		c = vgsvg.New(w, h)
	} else {
		c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(6), PadY: vg.Points(12)}
	cells := plot.Align([][]*plot.Plot{{elo}, {top1}}, tiles, draw.New(c))
	elo.Draw(cells[0][0])
	top1.Draw(cells[1][0])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = c.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func eloPanel(recs []loop.Record) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Ocvist learning loop: the pure policy against fixed anchors"
	p.Y.Label.Text = fmt.Sprintf("Elo (95%% interval; ±%d = perfect score)", loop.EloBound)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
	lo, hi := 0.0, 0.0
	for _, r := range recs {
		for _, m := range r.Anchors {
			lo, hi = min(lo, m.EloLow), max(hi, m.EloHigh)
		}
	}
	p.Y.Min, p.Y.Max = lo-50, hi+0.45*(hi-lo+100) // the legend sits above the data
	zero, err := plotter.NewLine(plotter.XYs{{X: float64(recs[0].Gen) - 0.5, Y: 0}, {X: float64(recs[len(recs)-1].Gen) + 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(zero)
	p.Legend.Add("0: as strong as the anchor", zero)
	for k, a := range recs[0].Anchors {
		pts, errs := make(plotter.XYs, len(recs)), make(plotter.YErrors, len(recs))
		for i, r := range recs {
			m := r.Anchors[k]
			pts[i] = plotter.XY{X: float64(r.Gen) + 0.08*float64(k-1), Y: m.Elo}
			errs[i].Low, errs[i].High = m.Elo-m.EloLow, m.EloHigh-m.Elo
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.Color = anchorColours[k%len(anchorColours)]
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{pts, errs})
		if err != nil {
			return nil, err
		}
		bars.Color = line.Color
		adopted, rejected := marks(recs, pts, line.Color)
		p.Add(line, bars, adopted, rejected)
		p.Legend.Add("against "+a.Against, line)
		if k == 0 {
			p.Legend.Add("adopted by the gate", adopted)
			p.Legend.Add("rejected by the gate", rejected)
		}
	}
	return p, nil
}

// marks are the points of adopted generations (discs) and rejected ones
// (crosses).
func marks(recs []loop.Record, pts plotter.XYs, c color.Color) (*plotter.Scatter, *plotter.Scatter) {
	var yes, no plotter.XYs
	for i, r := range recs {
		if r.Adopted {
			yes = append(yes, pts[i])
		} else {
			no = append(no, pts[i])
		}
	}
	a, _ := plotter.NewScatter(nonEmpty(yes))
	a.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	r, _ := plotter.NewScatter(nonEmpty(no))
	r.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
	return a, r
}

// nonEmpty keeps an empty scatter drawable (plotter refuses no points):
// a point far outside the axes.
func nonEmpty(xy plotter.XYs) plotter.XYs {
	if len(xy) == 0 {
		return plotter.XYs{{X: -1e9, Y: -1e9}}
	}
	return xy
}

func top1Panel(recs []loop.Record) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = "held-out top-1 agreement with the teacher"
	p.Y.Min, p.Y.Max = 0, 1
	pts := make(plotter.XYs, len(recs))
	for i, r := range recs {
		pts[i] = plotter.XY{X: float64(r.Gen), Y: r.Top1}
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	p.Add(line, points)
	return p, nil
}
