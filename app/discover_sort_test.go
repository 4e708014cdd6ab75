package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// TestDiscoverSortReads lays Discover out at the sizes people try with
// each sort chosen: the picker shows its whole label. A select is as wide
// as its placeholder, so "Most downloaded" read "Most down…" at every
// size.
func TestDiscoverSortReads(t *testing.T) {
	_, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	showDiscover(t, u)
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
