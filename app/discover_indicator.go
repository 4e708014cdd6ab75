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
	button  *widget.Button  // opens the Downloads list
	percent *widget.Label   // "45%"
	files   *widget.Label   // "2 files"
}

// indicatorWidth is the indicator's width: no wider than the sidebar.
const indicatorWidth = 64

// newDownloadsIndicator builds the indicator, hidden.
func newDownloadsIndicator(u *ui) *downloadsIndicator {
	d := &downloadsIndicator{u: u}
	d.button = widget.NewButtonWithIcon("", theme.DownloadIcon(), d.open)
	d.button.Importance = widget.LowImportance
	d.percent = widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	d.percent.SizeName = theme.SizeNameCaptionText
	d.files = widget.NewLabel("")
	d.files.SizeName = theme.SizeNameCaptionText
	d.files.Alignment = fyne.TextAlignCenter
	// As narrow as the sidebar's tabs, under them.
	box := container.NewVBox(d.button, d.percent, d.files)
	d.content = container.NewGridWrap(fyne.NewSize(indicatorWidth, box.MinSize().Height), box)
	d.content.Hide()
	return d
}

// open shows the Downloads list.
func (d *downloadsIndicator) open() {
	d.u.tabs.SelectIndex(tabDiscover)
	d.u.discover.jobsScroll.ScrollToTop()
}

// indicatorText says how far the running jobs are, "45%", with how many
// they are, "2 files", and whether there is anything to show: done and
// total are the bytes of the queued, running and verifying jobs.
func indicatorText(active int, done, total int64) (percent, files string, ok bool) {
	if active == 0 {
		return "", "", false
	}
	frac := 0.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	files = "1 file"
	if active > 1 {
		files = fmt.Sprintf("%d files", active)
	}
	return fmt.Sprintf("%.0f%%", 100*frac), files, true
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
	percent, files, ok := indicatorText(active, done, total)
	if !ok {
		d.content.Hide()
		return
	}
	d.percent.SetText(percent)
	d.files.SetText(files)
	d.content.Show()
}
