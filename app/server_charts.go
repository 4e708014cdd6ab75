package app

import (
	"fmt"
	"image/color"
	"math"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/server"
)

// chartSamples is how many samples the live charts keep: five minutes of
// the panel's one-second ticks.
const chartSamples = 300

// ttftMetric is the histogram of the time to first token that the
// charts read from the server's metrics.
const ttftMetric = "saji:time_to_first_token_seconds"

// serverCharts are the Server tab's live charts, as 'saji loadtest
// --report' draws a run: the generation speed and the time to first
// token over the last minutes, from the API's own metrics (chat replies
// included). record samples off the UI goroutine; show draws on it.
type serverCharts struct {
	card        *widget.Card
	speed, ttft *liveChart

	mu                 sync.Mutex
	speeds, ttfts      []float64 // the samples, oldest first; NaN: none
	lastSum, lastCount float64   // the TTFT histogram's totals last read
	primed             bool      // lastSum and lastCount are set
}

// newServerCharts lays out the charts.
func newServerCharts() *serverCharts {
	sc := &serverCharts{
		speed: newLiveChart("Generation speed", "tokens/s", 0, false),
		ttft:  newLiveChart("Time to first token", "ms", 1, true),
	}
	sc.card = widget.NewCard("", "The last five minutes", container.NewGridWithColumns(2, sc.speed, sc.ttft))
	return sc
}

// record adds a sample: the speed the panel measured, and the mean time
// to first token of the requests whose first token came since the last
// sample (none: a gap), from srv's metrics.
func (sc *serverCharts) record(srv *server.Server, speed float64) {
	sum, count := ttftTotals(srv)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	ttft := math.NaN()
	if sc.primed && count > sc.lastCount && sum >= sc.lastSum {
		ttft = (sum - sc.lastSum) / (count - sc.lastCount) * 1000
	}
	sc.lastSum, sc.lastCount, sc.primed = sum, count, true
	sc.speeds = appendSample(sc.speeds, speed)
	sc.ttfts = appendSample(sc.ttfts, ttft)
}

// appendSample appends v to xs, keeping the last chartSamples.
func appendSample(xs []float64, v float64) []float64 {
	xs = append(xs, v)
	if len(xs) > chartSamples {
		xs = append(xs[:0], xs[len(xs)-chartSamples:]...)
	}
	return xs
}

// show draws the samples; on the UI goroutine.
func (sc *serverCharts) show() {
	sc.mu.Lock()
	speeds, ttfts := append([]float64(nil), sc.speeds...), append([]float64(nil), sc.ttfts...)
	sc.mu.Unlock()
	sc.speed.setValues(speeds)
	sc.ttft.setValues(ttfts)
}

// ttftTotals returns the sum (seconds) and count of the time-to-first-
// token histogram over all models of srv (zeros when it has none).
func ttftTotals(srv *server.Server) (sum, count float64) {
	families, err := srv.Gather()
	if err != nil {
		return 0, 0
	}
	for _, f := range families {
		if f.GetName() != ttftMetric {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			sum += h.GetSampleSum()
			count += float64(h.GetSampleCount())
		}
	}
	return sum, count
}

// liveChart is a line chart of the last chartSamples values, newest at
// the right, drawn with canvas lines; NaN values are gaps. A chart of
// sparse samples (a TTFT only where a request began) marks each with a
// dot too, so that one between gaps shows.
type liveChart struct {
	widget.BaseWidget
	title, unit string
	color       int       // which of chartColors
	dots        bool      // mark every sample
	values      []float64 // on the UI goroutine
}

// chartColors are the charts' line colours: loadtest's report's blue and
// orange.
var chartColors = []color.NRGBA{{0x25, 0x63, 0xeb, 0xff}, {0xea, 0x58, 0x0c, 0xff}}

// newLiveChart returns an empty chart.
func newLiveChart(title, unit string, colorIndex int, dots bool) *liveChart {
	c := &liveChart{title: title, unit: unit, color: colorIndex, dots: dots}
	c.ExtendBaseWidget(c)
	return c
}

// setValues draws values.
func (c *liveChart) setValues(values []float64) {
	c.values = values
	c.Refresh()
}

// latest returns the newest value that is not a gap, and whether there is
// one.
func (c *liveChart) latest() (float64, bool) {
	for i := len(c.values) - 1; i >= 0; i-- {
		if !math.IsNaN(c.values[i]) {
			return c.values[i], true
		}
	}
	return 0, false
}

// CreateRenderer implements fyne.Widget.
func (c *liveChart) CreateRenderer() fyne.WidgetRenderer {
	r := &liveChartRenderer{c: c,
		bg:    canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground)),
		axis:  canvas.NewLine(theme.Color(theme.ColorNameDisabled)),
		title: canvas.NewText("", theme.Color(theme.ColorNameForeground)),
		top:   canvas.NewText("", theme.Color(theme.ColorNameDisabled)),
	}
	r.title.TextSize = theme.TextSize() * 0.9
	r.top.TextSize = theme.TextSize() * 0.8
	r.Refresh()
	return r
}

// liveChartRenderer draws a liveChart: a background, the baseline, the
// title with the newest value, the scale's top and a line per pair of
// neighbouring samples.
type liveChartRenderer struct {
	c          *liveChart
	bg         *canvas.Rectangle
	axis       *canvas.Line
	title, top *canvas.Text
	lines      []*canvas.Line
	dots       []*canvas.Circle
	size       fyne.Size
}

// chartHeight is the charts' plot height; the title sits above it.
const chartHeight = 110

func (r *liveChartRenderer) Destroy() {}

func (r *liveChartRenderer) MinSize() fyne.Size {
	return fyne.NewSize(200, chartHeight+r.title.MinSize().Height+theme.Padding())
}

func (r *liveChartRenderer) Objects() []fyne.CanvasObject {
	objs := []fyne.CanvasObject{r.bg, r.axis, r.title, r.top}
	for _, l := range r.lines {
		objs = append(objs, l)
	}
	for _, d := range r.dots {
		objs = append(objs, d)
	}
	return objs
}

func (r *liveChartRenderer) Layout(size fyne.Size) {
	r.size = size
	r.draw()
}

func (r *liveChartRenderer) Refresh() {
	c := r.c
	v, ok := c.latest()
	r.title.Text = c.title + ": -"
	if ok {
		r.title.Text = fmt.Sprintf("%s: %.1f %s", c.title, v, c.unit)
	}
	r.draw()
	canvas.Refresh(c)
}

// draw places the objects for the chart's size and values.
func (r *liveChartRenderer) draw() {
	c := r.c
	th := r.title.MinSize().Height
	plotTop := th + theme.Padding()
	w, h := r.size.Width, r.size.Height-plotTop
	r.title.Move(fyne.NewPos(0, 0))
	r.bg.Move(fyne.NewPos(0, plotTop))
	r.bg.Resize(fyne.NewSize(w, max(h, 0)))
	r.axis.Position1 = fyne.NewPos(0, r.size.Height)
	r.axis.Position2 = fyne.NewPos(w, r.size.Height)

	top := 0.0
	for _, v := range c.values {
		if !math.IsNaN(v) {
			top = max(top, v)
		}
	}
	scale := niceTop(top)
	r.top.Text = fmt.Sprintf("%g %s", scale, c.unit)
	r.top.Move(fyne.NewPos(w-r.top.MinSize().Width-theme.Padding(), plotTop))

	step := w / float32(chartSamples-1)
	x0 := w - step*float32(len(c.values)-1) // the newest sample at the right edge
	// The scale's label keeps the plot's top line: the scale's top is
	// drawn just below it, so a value near the top does not cover it.
	span := max(h-r.top.MinSize().Height, 0)
	y := func(v float64) float32 { return plotTop + h - float32(v/scale)*span }
	n := 0
	for i := 1; i < len(c.values); i++ {
		a, b := c.values[i-1], c.values[i]
		if math.IsNaN(a) || math.IsNaN(b) {
			continue
		}
		if n == len(r.lines) {
			l := canvas.NewLine(chartColors[c.color%len(chartColors)])
			l.StrokeWidth = 2
			r.lines = append(r.lines, l)
		}
		l := r.lines[n]
		l.Position1 = fyne.NewPos(x0+step*float32(i-1), y(a))
		l.Position2 = fyne.NewPos(x0+step*float32(i), y(b))
		l.Show()
		n++
	}
	for _, l := range r.lines[n:] {
		l.Hide()
	}
	n = 0
	for i, v := range c.values {
		if !c.dots || math.IsNaN(v) {
			continue
		}
		if n == len(r.dots) {
			r.dots = append(r.dots, canvas.NewCircle(chartColors[c.color%len(chartColors)]))
		}
		const radius = 2.5
		d := r.dots[n]
		d.Move(fyne.NewPos(x0+step*float32(i)-radius, y(v)-radius))
		d.Resize(fyne.NewSize(2*radius, 2*radius))
		d.Show()
		n++
	}
	for _, d := range r.dots[n:] {
		d.Hide()
	}
}

// niceTop returns the chart's scale for a largest value of top: 1, 2 or 5
// times a power of ten at or above it (1 for none).
func niceTop(top float64) float64 {
	if !(top > 0) || math.IsInf(top, 0) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(top)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*mag >= top {
			return f * mag
		}
	}
	return 10 * mag
}
