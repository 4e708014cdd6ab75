package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestServerChartsWhileHidden leaves the Server tab hidden: its charts
// still sample every second, so that "the last five minutes" include a
// reply written in the chat meanwhile. They sampled only while shown, so
// a reply's tokens came back as one spike (all of them over the time the
// tab was hidden) beside the sample before it, and its time to first
// token never showed.
func TestServerChartsWhileHidden(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	u.win.Resize(u.win.Canvas().Size().Max(fyne.NewSize(800, 600)))
	p := u.server
	if p.visible.Load() {
		t.Fatal("the panel counts as shown under the Chat tab")
	}
	samples := func() int {
		p.charts.mu.Lock()
		defer p.charts.mu.Unlock()
		return len(p.charts.speeds)
	}
	waitFor(t, "a chart sample while the tab is hidden", func() bool { return samples() >= 2 })
}

// TestLiveChartClearsItsScale draws a newest sample near the scale's top:
// its dot lies below the scale's label at the top right, not over it
// ("96.9 ms" drew over the "1" of "100 ms").
func TestLiveChartClearsItsScale(t *testing.T) {
	test.NewTempApp(t)
	c := newLiveChart("Time to first token", "ms", 1, true)
	w := test.NewTempWindow(t, c)
	w.Resize(fyne.NewSize(400, 200))
	c.setValues([]float64{40, 96.9})
	r := test.WidgetRenderer(c).(*liveChartRenderer)
	labelBottom := r.top.Position().Y + r.top.MinSize().Height
	for _, d := range r.dots {
		if d.Visible() && d.Position().Y < labelBottom {
			t.Errorf("a dot at y %v, over the scale's label (down to %v)", d.Position().Y, labelBottom)
		}
	}
}
