package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// shownDiscover returns a main window showing Discover over the fake hub,
// its first search done.
func shownDiscover(t *testing.T) *ui {
	t.Helper()
	_, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	showDiscover(t, u)
	return u
}

// TestDiscoverSortReads lays Discover out at the sizes people try with
// each sort chosen: the picker shows its whole label. A select is as wide
// as its placeholder, so "Most downloaded" read "Most down…" at every
// size.
func TestDiscoverSortReads(t *testing.T) {
	u := shownDiscover(t)
	v := u.discover
	for _, size := range []fyne.Size{fyne.NewSize(800, 600), fyne.NewSize(1100, 720), fyne.NewSize(1280, 800)} {
		for _, c := range sortChoices {
			v.locked(func() {
				v.sortSel.SetSelected(c.label)
				u.win.Resize(size)
				var shown []string
				for _, o := range test.LaidOutObjects(v.sortSel) {
					if txt, ok := o.(*canvas.Text); ok && txt.Visible() && txt.Text != "" {
						shown = append(shown, txt.Text)
					}
				}
				if got := strings.Join(shown, " "); got != c.label {
					t.Errorf("%v: the sort picker shows %q, want %q", size, got, c.label)
				}
			})
		}
	}
}

// TestDownloadsPanelFollowsItsRows lays Discover out at 800x600 with a
// repository open: with no download, the Downloads panel takes little
// more than its note, leaving the levels the room (it took two fifths
// of the view for "No downloads.", and the recommended level's button
// was out of view); a download makes it tall enough for its row.
func TestDownloadsPanelFollowsItsRows(t *testing.T) {
	u := shownDiscover(t)
	openDiscoverRepo(t, u.discover, tinyRepo)
	v := u.discover
	v.locked(func() {
		u.win.Resize(fyne.NewSize(800, 600))
		note := v.jobsNote.MinSize().Height
		if got := v.jobsScroll.Size().Height; got > 2*note {
			t.Errorf("with no download the Downloads list is %v px tall, for a note of %v", got, note)
		}
		recommended := 0
		for i, c := range v.fitCells {
			if c == nil || i >= len(v.details.rows) || !v.details.rows[i].Recommended {
				continue
			}
			recommended++
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(c.download)
			listTop := fyne.CurrentApp().Driver().AbsolutePositionForObject(v.jobsScroll).Y
			if pos.Y+c.download.Size().Height > listTop {
				t.Errorf("the recommended %s's button ends at %v, below the levels' pane (the Downloads list starts at %v)", c.name.Text, pos.Y+c.download.Size().Height, listTop)
			}
		}
		if recommended != 1 {
			t.Errorf("%d levels recommended, want 1", recommended)
		}
	})
}
