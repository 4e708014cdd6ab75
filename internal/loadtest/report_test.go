package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// sampleSummary is the summary of a made-up run of n requests, every
// later one slower by step, and one failure.
func sampleSummary(n int, step time.Duration) Summary {
	res := &Result{Concurrency: 4}
	for i := range n {
		d := time.Duration(i) * step
		r := RequestResult{Index: i, Started: true, Start: time.Duration(i) * 50 * time.Millisecond,
			TTFT: 30*time.Millisecond + d, Chunks: 8, PromptTokens: 64, OutputTokens: 8, OutputFromServer: true}
		for range 7 {
			r.ITL = append(r.ITL, 10*time.Millisecond+d/4)
		}
		r.Latency = r.TTFT + 7*(10*time.Millisecond+d/4)
		res.Requests = append(res.Requests, r)
		res.Duration = max(res.Duration, r.Start+r.Latency)
	}
	res.Requests = append(res.Requests, RequestResult{Index: n, Started: true, Err: errors.New("connection refused")})
	s := Summarize(res)
	s.Model, s.Endpoint, s.URL = "tiny", "completions", "http://127.0.0.1:8080/v1"
	return s
}

// offPage finds what would make a page fetch something: a script, a
// link, a source, a style import or url().
var offPage = regexp.MustCompile(`(?i)<script|<link|<img|<iframe|src=|href=|@import|url\(`)

// TestWriteHTML writes one run's page and two runs' side by side: every
// chart drawn, the settings shown, nothing outside the page asked for.
func TestWriteHTML(t *testing.T) {
	a, b := sampleSummary(20, time.Millisecond), sampleSummary(20, 3*time.Millisecond)
	for _, tc := range []struct {
		name string
		runs []ReportRun
		want []string
	}{
		{"one run", []ReportRun{{"run <1>", a}}, []string{"run &lt;1&gt;", "tiny", "http://127.0.0.1:8080/v1 completions", "<td>4</td>",
			"Output throughput over time", "TTFT (time to first token) distribution", "E2E (request latency) percentiles", "connection refused"}},
		{"two runs", []ReportRun{{"a", a}, {"b", b}}, []string{"<th>ratio</th>", "#ea580c", "ITL (inter-token latency) distribution"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHTML(&buf, "Load test", tc.runs); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			if n := strings.Count(page, "<svg "); n != 9 {
				t.Errorf("%d charts, want 9", n)
			}
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if m := offPage.FindString(page); m != "" {
				t.Errorf("the page reaches outside itself: %q", m)
			}
			if strings.Contains(page, "NaN") || strings.Contains(page, "Inf") {
				t.Error("the page draws a NaN or an infinity")
			}
		})
	}
	if err := WriteHTML(&bytes.Buffer{}, "none", nil); err == nil {
		t.Error("a report without a run written")
	}
}

// TestWriteHTMLWithoutRecords draws what a summary without per-request
// records allows, and says why the rest is missing.
func TestWriteHTMLWithoutRecords(t *testing.T) {
	s := sampleSummary(5, time.Millisecond)
	s.InputLens, s.OutputLens, s.TTFTs, s.ITLs, s.StartTimes, s.E2ELs = nil, nil, nil, nil, nil, nil
	var buf bytes.Buffer
	if err := WriteHTML(&buf, "old", []ReportRun{{"old", s}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, "<svg "); n != 4 {
		t.Errorf("%d charts, want the 4 percentile charts", n)
	}
	if !strings.Contains(page, "no per-request records") {
		t.Error("no note on the missing charts")
	}
	empty := Summarize(&Result{})
	if err := WriteHTML(&buf, "empty", []ReportRun{{"empty", empty}}); err != nil || strings.Contains(buf.String(), "NaN") {
		t.Errorf("an empty run: %v", err)
	}
}

// TestReadSummary reads what --json writes, and vLLM's result files.
func TestReadSummary(t *testing.T) {
	s := sampleSummary(6, time.Millisecond)
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadSummary(data)
	if err != nil || got.Completed != 6 || len(got.StartTimes) != 6 || got.MeanTTFT != s.MeanTTFT {
		t.Errorf("round trip: %+v %v", got, err)
	}
	for _, tc := range []struct {
		name, text string
		ok         bool
		records    int
	}{
		{"vLLM's result", `{"completed":2,"mean_ttft_ms":12.5,"ttfts":[0.01,0.015],"itls":[[0.01],[0.02]],"input_lens":[3,4],"output_lens":[2,2],"errors":["",""]}`, true, 2},
		{"records that disagree", `{"completed":2,"ttfts":[0.01,0.015],"start_times":[0],"itls":[[],[]],"e2els":[1,2],"output_lens":[1,1]}`, true, 0},
		{"no completed count", `{"mean_ttft_ms":1}`, false, 0},
		{"not an object", `[1,2]`, false, 0},
		{"a wrong type", `{"completed":"two"}`, false, 0},
	} {
		s, err := ReadSummary([]byte(tc.text))
		if (err == nil) != tc.ok || len(s.TTFTs) != tc.records {
			t.Errorf("%s: %d records, %v", tc.name, len(s.TTFTs), err)
		}
	}
}

// FuzzReadSummary reads any file and draws what it accepts, without a
// panic.
func FuzzReadSummary(f *testing.F) {
	data, _ := json.Marshal(sampleSummary(3, time.Millisecond))
	f.Add(data)
	f.Add([]byte(`{"completed":1,"ttfts":[1e308],"itls":[[-1]],"output_lens":[0],"e2els":[-5],"start_times":[1e300]}`))
	f.Add([]byte(`{"completed":0,"duration":-1,"mean_ttft_ms":-3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSummary(data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteHTML(&buf, "fuzz", []ReportRun{{"a", s}, {"b", s}}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestNiceTicks picks round tick values that reach the top.
func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		top  float64
		want []float64
	}{
		{1, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}},
		{7, []float64{0, 2, 4, 6, 8}},
		{250, []float64{0, 50, 100, 150, 200, 250}},
		{0, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}},
	} {
		if got := niceTicks(tc.top); !slices.Equal(got, tc.want) {
			t.Errorf("niceTicks(%g) = %v, want %v", tc.top, got, tc.want)
		}
	}
}

// TestReportInBrowser opens a report in headless Chromium and checks that
// it draws (a screenshot that is not blank). Under CI=true it runs only
// with SAJI_BROWSER_TEST=1, and then requires Chromium: the Makefile's
// report step sets it once the background deps-package step has installed
// Chromium, so the unit step does not wait for it. Elsewhere it runs where
// Chromium is installed. SAJI_REPORT_SCREENSHOT=FILE keeps the
// screenshot.
func TestReportInBrowser(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	switch {
	case browser == "" && os.Getenv("SAJI_BROWSER_TEST") == "1":
		t.Fatal("SAJI_BROWSER_TEST=1 but no Chromium is installed (apt-get install chromium)")
	case browser == "":
		t.Skip("no Chromium installed (apt-get install chromium); the report is not opened in a browser")
	case os.Getenv("CI") == "true" && os.Getenv("SAJI_BROWSER_TEST") != "1":
		t.Skip("CI runs the browser test only with SAJI_BROWSER_TEST=1")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, "Load tests: a and b", []ReportRun{{"a", sampleSummary(30, time.Millisecond)}, {"b", sampleSummary(30, 2*time.Millisecond)}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1200,2400", "--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The charts' colours: the runs' bars and lines.
	var blue, orange int
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 2 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			switch {
			case r < 0x40 && g > 0x50 && g < 0x80 && b > 0xd0:
				blue++
			case r > 0xd0 && g > 0x50 && g < 0x70 && b < 0x20:
				orange++
			}
		}
	}
	if blue < 500 || orange < 500 {
		t.Errorf("the screenshot shows %d blue and %d orange samples: the charts did not draw", blue, orange)
	}
	if keep := os.Getenv("SAJI_REPORT_SCREENSHOT"); keep != "" {
		data, err := os.ReadFile(shot)
		if err == nil {
			err = os.WriteFile(keep, data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
