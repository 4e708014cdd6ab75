package loadtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// ReportRun is a run shown in an HTML report: its summary under a label.
type ReportRun struct {
	Label   string
	Summary Summary
}

// runColors are the runs' colours in the charts, in order.
var runColors = []string{"#2563eb", "#ea580c", "#16a34a", "#9333ea"}

// WriteHTML writes a self-contained page about runs (one, or several side
// by side): their settings, the latency percentiles, and as inline SVG
// charts the percentiles, the output throughput over time and the latency
// distributions. It loads nothing from the network. A run whose summary
// has no per-request records (a JSON file from before they were written,
// or vLLM's without start times) gets the tables and the charts its
// figures allow, and a note.
func WriteHTML(w io.Writer, title string, runs []ReportRun) error {
	if len(runs) == 0 {
		return fmt.Errorf("loadtest: a report needs a run")
	}
	page := reportPage{Title: title, Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	for i, r := range runs {
		page.Runs = append(page.Runs, reportRunView{Label: r.Label, Color: runColors[i%len(runColors)]})
	}
	page.Settings = settingsRows(runs)
	page.Results = resultRows(runs)
	for _, m := range latencyMetrics {
		page.Percentiles = append(page.Percentiles, percentileChart(m, runs))
	}
	page.Throughput = throughputChart(runs)
	for _, m := range latencyMetrics {
		if c := histogramChart(m, runs); c != "" {
			page.Histograms = append(page.Histograms, c)
		}
	}
	for i, r := range runs {
		if len(r.Summary.StartTimes) == 0 {
			page.Notes = append(page.Notes, fmt.Sprintf("%s: the file has no per-request records (start_times, ttfts, itls): its throughput over time and latency distributions are not drawn", r.Label))
		}
		for _, n := range r.Summary.Notes {
			page.Notes = append(page.Notes, runs[i].Label+": "+n)
		}
		for _, e := range r.Summary.Errors {
			page.Notes = append(page.Notes, runs[i].Label+": error: "+e)
		}
	}
	if err := reportTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("loadtest: writing the HTML report: %w", err)
	}
	return nil
}

// reportPage is what the report's template shows.
type reportPage struct {
	Title, Generated string
	Runs             []reportRunView
	Settings         []reportRow
	Results          []reportRow
	Percentiles      []template.HTML
	Throughput       template.HTML
	Histograms       []template.HTML
	Notes            []string
}

// reportRunView is a run's heading in the tables.
type reportRunView struct{ Label, Color string }

// reportRow is a table row: a name and a cell per run, with the last
// run's ratio to the first when there are two.
type reportRow struct {
	Name  string
	Cells []string
	Ratio string
}

// settingsRows are the runs' settings.
func settingsRows(runs []ReportRun) []reportRow {
	row := func(name string, f func(s *Summary) string) reportRow {
		r := reportRow{Name: name}
		for i := range runs {
			r.Cells = append(r.Cells, f(&runs[i].Summary))
		}
		return r
	}
	return []reportRow{
		row("Model", func(s *Summary) string { return s.Model }),
		row("Server", func(s *Summary) string { return strings.TrimSpace(s.URL + " " + s.Endpoint) }),
		row("Requests", func(s *Summary) string { return fmt.Sprint(s.NumPrompts) }),
		row("Max concurrency", func(s *Summary) string {
			if s.MaxConcurrency == nil {
				return "unlimited"
			}
			return fmt.Sprint(*s.MaxConcurrency)
		}),
		row("Arrivals", func(s *Summary) string {
			if s.RequestRate == nil {
				return "all at once"
			}
			return fmt.Sprintf("%g req/s (Poisson)", *s.RequestRate)
		}),
		row("Mean prompt / output tokens", func(s *Summary) string {
			if s.Completed == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f / %.0f", float64(s.TotalInputTokens)/float64(s.Completed), float64(s.TotalOutputTokens)/float64(s.Completed))
		}),
	}
}

// resultRows are the runs' outcomes, throughputs and latency figures.
func resultRows(runs []ReportRun) []reportRow {
	row := func(name, format string, f func(s *Summary) float64) reportRow {
		r := reportRow{Name: name}
		for i := range runs {
			r.Cells = append(r.Cells, fmt.Sprintf(format, f(&runs[i].Summary)))
		}
		if len(runs) == 2 {
			if a, b := f(&runs[0].Summary), f(&runs[1].Summary); a > 0 {
				r.Ratio = fmt.Sprintf("%.2f×", b/a)
			}
		}
		return r
	}
	rows := []reportRow{
		row("Duration (s)", "%.2f", func(s *Summary) float64 { return s.Duration }),
		row("Completed", "%.0f", func(s *Summary) float64 { return float64(s.Completed) }),
		row("Failed", "%.0f", func(s *Summary) float64 { return float64(s.Failed) }),
		row("Request throughput (req/s)", "%.2f", func(s *Summary) float64 { return s.RequestThroughput }),
		row("Output throughput (tok/s)", "%.1f", func(s *Summary) float64 { return s.OutputThroughput }),
		row("Total token throughput (tok/s)", "%.1f", func(s *Summary) float64 { return s.TotalTokenThroughput }),
	}
	for _, m := range latencyMetrics {
		for _, st := range []struct {
			name string
			f    func(Dist) float64
		}{{"mean", func(d Dist) float64 { return d.Mean }}, {"p50", func(d Dist) float64 { return d.P50 }},
			{"p90", func(d Dist) float64 { return d.P90 }}, {"p99", func(d Dist) float64 { return d.P99 }}} {
			rows = append(rows, row(m.name+" "+st.name+" (ms)", "%.2f", func(s *Summary) float64 { return st.f(m.dist(s)) }))
		}
	}
	return rows
}

// latencyMetric is one of the latency figures: its name, its summary
// distribution and its samples (milliseconds) from the per-request
// records.
type latencyMetric struct {
	name, long string
	dist       func(*Summary) Dist
	samples    func(*Summary) []float64
}

// latencyMetrics are TTFT, TPOT, ITL and E2E latency.
var latencyMetrics = []latencyMetric{
	{"TTFT", "time to first token", (*Summary).TTFT, func(s *Summary) []float64 {
		var out []float64
		for _, t := range s.TTFTs {
			if t > 0 {
				out = append(out, t*1e3)
			}
		}
		return out
	}},
	{"TPOT", "time per output token", (*Summary).TPOT, func(s *Summary) []float64 {
		var out []float64
		for i, t := range s.TTFTs {
			if t > 0 && i < len(s.E2ELs) && i < len(s.OutputLens) && s.OutputLens[i] > 1 {
				out = append(out, (s.E2ELs[i]-t)/float64(s.OutputLens[i]-1)*1e3)
			}
		}
		return out
	}},
	{"ITL", "inter-token latency", (*Summary).ITL, func(s *Summary) []float64 {
		var out []float64
		for _, gaps := range s.ITLs {
			for _, g := range gaps {
				out = append(out, g*1e3)
			}
		}
		return out
	}},
	{"E2E", "request latency", (*Summary).E2EL, func(s *Summary) []float64 {
		out := make([]float64, len(s.E2ELs))
		for i, t := range s.E2ELs {
			out[i] = t * 1e3
		}
		return out
	}},
}

// The charts' size and margins, in SVG units.
const (
	chartW, chartH                  = 560.0, 260.0
	padL, padR, padT, padB          = 62.0, 14.0, 30.0, 42.0
	plotW, plotH                    = chartW - padL - padR, chartH - padT - padB
	histBins                        = 30
	throughputBuckets               = 40
	svgOpen                         = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 560 260" role="img" aria-label="%s">`
	textStyle                       = `font-family="system-ui,sans-serif" font-size="11" fill="#374151"`
	chartTitleStyle                 = `font-family="system-ui,sans-serif" font-size="13" font-weight="600" fill="#111827"`
	gridColor, axisColor, fillAlpha = "#e5e7eb", "#9ca3af", "0.18"
)

// plot draws a chart's frame: its title, a grid with ticks up to xmax and
// ymax, the axis labels; body draws the series with x and y mapping data
// to SVG coordinates. xTicks false leaves the x axis to the body (a bar
// chart's categories).
func plot(title, xLabel, yLabel string, xmax, ymax float64, xTicks bool, body func(b *strings.Builder, x, y func(float64) float64)) template.HTML {
	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, svgOpen, esc(title))
	fmt.Fprintf(&b, `<text x="%g" y="18" %s>%s</text>`, padL, chartTitleStyle, esc(title))
	yt := niceTicks(ymax)
	ymax = yt[len(yt)-1]
	x := func(v float64) float64 { return padL + v/xmax*plotW }
	y := func(v float64) float64 { return padT + plotH - v/ymax*plotH }
	for _, t := range yt {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="%s"/>`, padL, y(t), padL+plotW, y(t), gridColor)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end" %s>%s</text>`, padL-6, y(t)+4, textStyle, tickLabel(t))
	}
	if xTicks {
		xt := niceTicks(xmax)
		xmax = xt[len(xt)-1]
		for _, t := range xt {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="%s"/>`, x(t), padT+plotH, x(t), padT+plotH+4, axisColor)
			fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle" %s>%s</text>`, x(t), padT+plotH+16, textStyle, tickLabel(t))
		}
	}
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s"/>`, padL, padT+plotH, padL+plotW, padT+plotH, axisColor)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle" %s>%s</text>`, padL+plotW/2, chartH-6, textStyle, esc(xLabel))
	fmt.Fprintf(&b, `<text transform="translate(14 %g) rotate(-90)" text-anchor="middle" %s>%s</text>`, padT+plotH/2, textStyle, esc(yLabel))
	body(&b, x, y)
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built here from numbers and escaped text
}

// niceTicks returns 0 and evenly spaced round values (1, 2 or 5 times a
// power of ten apart) up to the first at or above top.
func niceTicks(top float64) []float64 {
	if !(top > 1e-300) || math.IsInf(top, 0) {
		top = 1
	}
	raw := top / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, f := range []float64{1, 2, 5} {
		if f*mag >= raw {
			step = f * mag
			break
		}
	}
	if !(step > 0) || math.IsInf(step, 0) {
		return []float64{0, 1}
	}
	var out []float64
	for i := 0; ; i++ {
		t := float64(i) * step
		out = append(out, t)
		if t >= top*(1-1e-9) || i == 12 { // 12: a step too small to represent
			return out
		}
	}
}

// tickLabel prints a tick's value briefly.
func tickLabel(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmt.Sprintf("%gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%gk", v/1e3)
	}
	return fmt.Sprintf("%g", math.Round(v*1000)/1000)
}

// percentileChart draws metric m's mean, p50, p90 and p99 as bars, a bar
// per run in each group.
func percentileChart(m latencyMetric, runs []ReportRun) template.HTML {
	groups := []string{"mean", "p50", "p90", "p99"}
	vals := make([][]float64, len(runs))
	top := 0.0
	for i := range runs {
		d := m.dist(&runs[i].Summary)
		vals[i] = []float64{d.Mean, d.P50, d.P90, d.P99}
		top = max(top, slices.Max(vals[i]))
	}
	return plot(fmt.Sprintf("%s (%s) percentiles", m.name, m.long), "", "ms", float64(len(groups)), top, false,
		func(b *strings.Builder, x, y func(float64) float64) {
			gw := x(1) - x(0)
			bw := gw * 0.7 / float64(len(runs))
			for g, name := range groups {
				fmt.Fprintf(b, `<text x="%.1f" y="%g" text-anchor="middle" %s>%s</text>`, x(float64(g)+0.5), padT+plotH+16, textStyle, name)
				for i := range runs {
					v := vals[i][g]
					x0 := x(float64(g)) + gw*0.15 + float64(i)*bw
					fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s %s: %.2f ms</title></rect>`,
						x0, y(v), bw-1, y(0)-y(v), runColors[i%len(runColors)], html.EscapeString(runs[i].Label), m.name, name, v)
				}
			}
		})
}

// throughputChart draws each run's output tokens per second over the run,
// from the streamed chunks' arrival times (a chunk counts its request's
// output tokens over its chunks); empty when no run has its records.
func throughputChart(runs []ReportRun) template.HTML {
	span := 0.0
	for _, r := range runs {
		if len(r.Summary.StartTimes) > 0 {
			span = max(span, r.Summary.Duration)
		}
	}
	if span <= 0 {
		return ""
	}
	width := span / throughputBuckets
	series := make([][]float64, len(runs))
	top := 0.0
	for i, r := range runs {
		s := &r.Summary
		if len(s.StartTimes) == 0 {
			continue
		}
		tok := make([]float64, throughputBuckets)
		for j, start := range s.StartTimes {
			if j >= len(s.TTFTs) || j >= len(s.ITLs) || j >= len(s.OutputLens) || s.TTFTs[j] <= 0 {
				continue
			}
			per := float64(s.OutputLens[j]) / float64(len(s.ITLs[j])+1)
			t := start + s.TTFTs[j]
			add := func(t float64) {
				k := min(max(int(t/width), 0), throughputBuckets-1)
				tok[k] += per
			}
			add(t)
			for _, g := range s.ITLs[j] {
				t += g
				add(t)
			}
		}
		for k := range tok {
			tok[k] /= width
			top = max(top, tok[k])
		}
		// The line ends with the run (a shorter one beside a longer).
		series[i] = tok[:min(max(int(math.Ceil(s.Duration/width)), 1), throughputBuckets)]
	}
	return plot("Output throughput over time", "seconds from the start of the run", "tokens/s", span, top, true,
		func(b *strings.Builder, x, y func(float64) float64) {
			for i, tok := range series {
				if tok == nil {
					continue
				}
				var pts []string
				for k, v := range tok {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", x((float64(k)+0.5)*width), y(v)))
				}
				fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"><title>%s</title></polyline>`,
					strings.Join(pts, " "), runColors[i%len(runColors)], html.EscapeString(runs[i].Label))
			}
		})
}

// histogramChart draws the distribution of metric m's samples in each run
// as a histogram over shared bins up to the largest p99 (later samples in
// the last bin); empty when no run has samples.
func histogramChart(m latencyMetric, runs []ReportRun) template.HTML {
	samples := make([][]float64, len(runs))
	hi := 0.0
	for i := range runs {
		samples[i] = m.samples(&runs[i].Summary)
		if len(samples[i]) > 0 {
			hi = max(hi, Percentile(samples[i], 99))
		}
	}
	if hi <= 0 {
		return ""
	}
	hi *= 1.05
	width := hi / histBins
	counts := make([][]float64, len(runs))
	top := 0.0
	for i, xs := range samples {
		if len(xs) == 0 {
			continue
		}
		c := make([]float64, histBins)
		for _, v := range xs {
			c[min(max(int(v/width), 0), histBins-1)]++
		}
		for k := range c {
			c[k] /= float64(len(xs)) // a share, so that runs of other sizes compare
			top = max(top, c[k]*100)
		}
		counts[i] = c
	}
	return plot(fmt.Sprintf("%s (%s) distribution", m.name, m.long), "ms", "% of samples", hi, top, true,
		func(b *strings.Builder, x, y func(float64) float64) {
			for i, c := range counts {
				if c == nil {
					continue
				}
				col := runColors[i%len(runColors)]
				pts := []string{fmt.Sprintf("%.1f,%.1f", x(0), y(0))}
				for k, v := range c {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(float64(k)*width), y(v*100), x(float64(k+1)*width), y(v*100)))
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(hi), y(0)))
				fmt.Fprintf(b, `<polygon points="%s" fill="%s" fill-opacity="%s" stroke="%s" stroke-width="1.5"><title>%s: %d samples</title></polygon>`,
					strings.Join(pts, " "), col, fillAlpha, col, html.EscapeString(runs[i].Label), len(samples[i]))
			}
		})
}

// reportTemplate is the report page: styles inline, charts inline SVG, no
// script and no link to anything outside it.
var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; color: #111827; margin: 24px auto; max-width: 1180px; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; }
.sub { color: #6b7280; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; margin-top: 8px; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 4px 12px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px; }
.charts svg { width: 100%; height: auto; border: 1px solid #e5e7eb; border-radius: 6px; background: #fff; }
.legend span { margin-right: 18px; font-size: 13px; }
li { font-size: 13px; color: #374151; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<div class="sub">saji loadtest, {{.Generated}}</div>
<p class="legend">{{range .Runs}}<span><span class="swatch" style="background: {{.Color}}"></span>{{.Label}}</span>{{end}}</p>
<h2>Settings</h2>
<table>
<tr><th></th>{{range .Runs}}<th>{{.Label}}</th>{{end}}</tr>
{{range .Settings}}<tr><td>{{.Name}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<h2>Results</h2>
<table>
<tr><th></th>{{range .Runs}}<th>{{.Label}}</th>{{end}}{{if eq (len .Runs) 2}}<th>ratio</th>{{end}}</tr>
{{range .Results}}<tr><td>{{.Name}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}{{if .Ratio}}<td>{{.Ratio}}</td>{{end}}</tr>
{{end}}</table>
<h2>Latency percentiles</h2>
<div class="charts">{{range .Percentiles}}{{.}}{{end}}</div>
{{if .Throughput}}<h2>Throughput over time</h2>
<div class="charts">{{.Throughput}}</div>{{end}}
{{if .Histograms}}<h2>Latency distributions</h2>
<div class="charts">{{range .Histograms}}{{.}}{{end}}</div>{{end}}
{{if .Notes}}<h2>Notes</h2>
<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body>
</html>
`))

// ReadSummary reads a run's summary from the JSON that 'saji loadtest
// --json' writes (vLLM's result file reads too: the names are the same).
// Per-request records whose lists disagree in length are dropped, with a
// note, so that the charts never read past one.
func ReadSummary(data []byte) (Summary, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return Summary{}, fmt.Errorf("loadtest: not a load test's JSON: %w", err)
	}
	if _, ok := probe["completed"]; !ok {
		return Summary{}, errors.New("loadtest: not a load test's JSON: it has no \"completed\" count")
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return Summary{}, fmt.Errorf("loadtest: reading a load test's JSON: %w", err)
	}
	n := len(s.TTFTs)
	if len(s.StartTimes) > 0 && (len(s.StartTimes) != n || len(s.E2ELs) != n || len(s.ITLs) != n || len(s.OutputLens) != n) {
		s.InputLens, s.OutputLens, s.TTFTs, s.ITLs, s.StartTimes, s.E2ELs = nil, nil, nil, nil, nil, nil
		s.Notes = append(s.Notes, "the per-request records disagree in length and are left out")
	}
	if len(s.StartTimes) == 0 && (len(s.E2ELs) != n || len(s.ITLs) != n || len(s.OutputLens) != n) {
		// vLLM's file: ttfts and itls, no start times nor latencies.
		s.E2ELs, s.StartTimes = nil, nil
		if len(s.ITLs) != n {
			s.ITLs = nil
		}
		if len(s.OutputLens) != n {
			s.OutputLens = nil
		}
	}
	return s, nil
}

// WriteCompareText prints two runs' results side by side, with b's ratio
// to a.
func WriteCompareText(w io.Writer, a, b ReportRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%s\t%s\t%s/%s\t\n", a.Label, b.Label, b.Label, a.Label)
	for _, rows := range [][]reportRow{settingsRows([]ReportRun{a, b}), resultRows([]ReportRun{a, b})} {
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Name, r.Cells[0], r.Cells[1], r.Ratio)
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("loadtest: writing the comparison: %w", err)
	}
	return nil
}
