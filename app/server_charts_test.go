package app

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// chartLines returns the chart's visible line segments and its title.
func chartLines(t *testing.T, c *liveChart) (int, string) {
	t.Helper()
	r := test.WidgetRenderer(c).(*liveChartRenderer)
	n := 0
	for _, l := range r.lines {
		if l.Visible() {
			n++
		}
	}
	return n, r.title.Text
}

// chartDots returns the chart's visible dots.
func chartDots(t *testing.T, c *liveChart) int {
	t.Helper()
	n := 0
	for _, d := range test.WidgetRenderer(c).(*liveChartRenderer).dots {
		if d.Visible() {
			n++
		}
	}
	return n
}

// TestLiveChart draws a segment between each pair of neighbouring
// samples, none across a gap, and redraws when the samples change.
func TestLiveChart(t *testing.T) {
	test.NewTempApp(t)
	c := newLiveChart("Time to first token", "ms", 1, true)
	w := test.NewTempWindow(t, c)
	w.Resize(fyne.NewSize(400, 200))
	if n, title := chartLines(t, c); n != 0 || title != "Time to first token: -" {
		t.Errorf("empty: %d lines, title %q", n, title)
	}
	nan := math.NaN()
	for _, tc := range []struct {
		values      []float64
		lines, dots int
		title       string
	}{
		{[]float64{5}, 0, 1, "Time to first token: 5.0 ms"},
		{[]float64{5, 7, nan, 3, 4}, 2, 4, "Time to first token: 4.0 ms"},
		{[]float64{5, 7, nan, 3, 4, 6, nan}, 3, 5, "Time to first token: 6.0 ms"},
		{[]float64{1, 2, 3}, 2, 3, "Time to first token: 3.0 ms"},
	} {
		c.setValues(tc.values)
		if n, title := chartLines(t, c); n != tc.lines || title != tc.title {
			t.Errorf("%v: %d lines, title %q; want %d, %q", tc.values, n, title, tc.lines, tc.title)
		}
		if n := chartDots(t, c); n != tc.dots {
			t.Errorf("%v: %d dots, want %d", tc.values, n, tc.dots)
		}
	}
	// The newest sample is at the right edge, the largest below the top.
	r := test.WidgetRenderer(c).(*liveChartRenderer)
	last := r.lines[1]
	if right := c.Size().Width; math.Abs(float64(last.Position2.X-right)) > 0.5 {
		t.Errorf("the newest sample at x %g, want the right edge %g", last.Position2.X, right)
	}
	if r.top.Text != "5 ms" {
		t.Errorf("scale %q, want 5 ms", r.top.Text)
	}
}

// TestServerChartsFollowTheAPI answers a request through the API and sees
// the charts take its speed and time to first token at the next tick.
func TestServerChartsFollowTheAPI(t *testing.T) {
	u, p := serverTestUI(t)
	p.port.SetText("0")
	startPanel(t, p)
	url := u.core.APIURL()
	e, err := u.core.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.refresh()
	if n := len(p.charts.speed.values); n != 1 || !math.IsNaN(p.charts.ttft.values[0]) {
		t.Fatalf("after one tick: %d samples, TTFT %v", n, p.charts.ttft.values)
	}
	code, body := httpDo(t, "POST", url+"/v1/chat/completions", "",
		`{"model": "`+e.Name+`", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 8}`)
	if code != http.StatusOK {
		t.Fatalf("chat completion: %d %s", code, body)
	}
	p.refresh()
	speeds, ttfts := p.charts.speed.values, p.charts.ttft.values
	if len(speeds) != 2 || !(speeds[1] > 0) || !(ttfts[1] > 0) {
		t.Fatalf("after the request: speeds %v, TTFTs %v", speeds, ttfts)
	}
	if _, title := chartLines(t, p.charts.ttft); !strings.HasSuffix(title, " ms") || strings.HasSuffix(title, ": -") {
		t.Errorf("TTFT chart title %q", title)
	}
	if n, _ := chartLines(t, p.charts.speed); n != 1 {
		t.Errorf("speed chart: %d segments, want 1", n)
	}
	p.refresh() // idle: the speed falls to 0, no new TTFT
	if v := p.charts.speed.values; len(v) != 3 || v[2] != 0 || !math.IsNaN(p.charts.ttft.values[2]) {
		t.Errorf("an idle tick: speeds %v, TTFTs %v", v, p.charts.ttft.values)
	}
}

// TestChartSamplesBounded keeps the last five minutes.
func TestChartSamplesBounded(t *testing.T) {
	var xs []float64
	for i := range chartSamples + 50 {
		xs = appendSample(xs, float64(i))
	}
	if len(xs) != chartSamples || xs[0] != 50 || xs[len(xs)-1] != chartSamples+49 {
		t.Errorf("%d samples, %g to %g", len(xs), xs[0], xs[len(xs)-1])
	}
}

// TestNiceTop rounds a chart's scale up to 1, 2 or 5 times a power of ten.
func TestNiceTop(t *testing.T) {
	for top, want := range map[float64]float64{0: 1, 0.3: 0.5, 1: 1, 7: 10, 12: 20, 180: 200, 4500: 5000, math.NaN(): 1} {
		if got := niceTop(top); got != want {
			t.Errorf("niceTop(%g) = %g, want %g", top, got, want)
		}
	}
}
