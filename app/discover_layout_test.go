package app

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestDiscoverLayout lays Discover out at 800x600 and 1100x720 with a
// repository open and a download listed: the quant table has no scroll
// of its own inside the details' scroll, each verdict is one line, every
// level's button is in view across the pane, and the Downloads panel is
// tall enough for a whole row with its progress line. SAJI_SHOTS names a
// folder for a picture of each size.
func TestDiscoverLayout(t *testing.T) {
	_, u, id := startSlowDownload(t, 256<<10)
	defer tapRow(t, u.discover, id, func(r *jobRowView) *widget.Button { return r.cancelBtn })
	v := u.discover
	for _, size := range []fyne.Size{fyne.NewSize(800, 600), fyne.NewSize(1100, 720)} {
		v.locked(func() {
			u.win.Resize(size)
			walk(v.quantTable, func(o fyne.CanvasObject) bool {
				if _, ok := o.(*container.Scroll); ok {
					t.Errorf("%v: a scroll inside the quant table", size)
				}
				return false
			})
			line := widget.NewLabel("Fits").MinSize().Height
			for _, c := range v.fitCells {
				if c.label.Size().Height > line+1 {
					t.Errorf("%v: the verdict %q takes %v px, more than a line (%v)", size, c.label.Text, c.label.Size().Height, line)
				}
				pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(c.download)
				if pos.X+c.download.Size().Width > size.Width {
					t.Errorf("%v: %s's button ends at %v, out of the window", size, c.name.Text, pos.X+c.download.Size().Width)
				}
			}
			row := v.rows[id]
			if row == nil {
				t.Fatal("no row for the download")
			}
			if need, got := row.box.MinSize().Height, v.jobsScroll.Size().Height; got < need {
				t.Errorf("%v: the Downloads panel is %v px tall, a row needs %v", size, got, need)
			}
			if dir := os.Getenv("SAJI_SHOTS"); dir != "" {
				f, err := os.Create(filepath.Join(dir, fmt.Sprintf("discover-%.0fx%.0f.png", size.Width, size.Height)))
				if err == nil {
					png.Encode(f, u.win.Canvas().Capture())
					f.Close()
				}
			}
		})
	}
}

// TestDownloadsIndicatorFits checks that the sidebar's indicator is no
// wider than the sidebar, so that it covers no view.
func TestDownloadsIndicatorFits(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	u.win.Resize(fyne.NewSize(800, 600))
	d := u.discover.indicator
	d.percent.SetText("100%")
	d.files.SetText("12 files")
	d.content.Show()
	u.win.Content().Refresh()
	var side float32
	for _, o := range test.LaidOutObjects(u.tabs) {
		if b, ok := o.(fyne.Widget); ok && fmt.Sprintf("%T", b) == "*container.tabButton" && b.Size().Width > side {
			side = b.Size().Width
		}
	}
	if side == 0 {
		t.Skip("the sidebar's width is not known")
	}
	if w := d.content.MinSize().Width; w > side {
		t.Errorf("the indicator is %v px wide, the sidebar %v", w, side)
	}
	for _, o := range []fyne.CanvasObject{d.button, d.percent, d.files} {
		if w := o.MinSize().Width; w > indicatorWidth {
			t.Errorf("the indicator's %T needs %v px of its %v", o, w, indicatorWidth)
		}
	}
}
