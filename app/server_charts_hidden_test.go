package app

import (
	"testing"

	"fyne.io/fyne/v2"
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
