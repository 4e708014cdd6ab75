package app

// The sidebar's downloads indicator: while downloads run it shows, under
// the views' tabs and so from every view, how far they are, and it opens
// the Downloads list of the Discover view.

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
)

// downloadsIndicator is the sidebar's line of the downloads under way.
// Its widgets belong to the UI goroutine.
type downloadsIndicator struct {
	u       *ui
	content *fyne.Container // hidden while nothing downloads
	button  *widget.Button
	bar     *widget.ProgressBar
}

// newDownloadsIndicator builds the indicator, hidden.
func newDownloadsIndicator(u *ui) *downloadsIndicator {
	d := &downloadsIndicator{u: u}
	d.button = widget.NewButtonWithIcon("", theme.DownloadIcon(), d.open)
	d.button.Importance = widget.LowImportance
	d.button.Alignment = widget.ButtonAlignLeading
	d.bar = widget.NewProgressBar()
	d.bar.TextFormatter = func() string { return "" }
	d.content = container.NewVBox(d.button, d.bar)
	d.content.Hide()
	return d
}

// open shows the Downloads list.
func (d *downloadsIndicator) open() {
	d.u.tabs.SelectIndex(tabDiscover)
	d.u.discover.jobsScroll.ScrollToTop()
}

// indicatorText says how far the running jobs are: "2 files · 45%", and
// whether there is anything to show: done and total are the bytes of the
// queued, running and verifying jobs.
func indicatorText(active int, done, total int64) (string, float64, bool) {
	if active == 0 {
		return "", 0, false
	}
	frac := 0.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	files := "1 file"
	if active > 1 {
		files = fmt.Sprintf("%d files", active)
	}
	return fmt.Sprintf("%s · %.0f%%", files, 100*frac), frac, true
}

// show draws the progress of jobs, hiding the indicator when none of
// them is under way.
func (d *downloadsIndicator) show(jobs []*download.Job) {
	var active int
	var done, total int64
	for _, j := range jobs {
		p := j.Progress()
		if !p.State.Active() {
			continue
		}
		active++
		t := p.Total
		if t == 0 {
			t = j.Request().Size
		}
		done, total = done+p.Done, total+t
	}
	text, frac, ok := indicatorText(active, done, total)
	if !ok {
		d.content.Hide()
		return
	}
	d.button.SetText(text)
	d.bar.SetValue(frac)
	d.content.Show()
}
