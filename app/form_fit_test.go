package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestFormDialogsFit opens the conversation's settings and a model's
// preset in an 800x600 window: every text and field of the form ends
// inside the window. A form's hint is one line that does not wrap, and
// the context's ran to 130 characters, so the dialog was wider than the
// window, its fields ran off its right edge and the hint was cut.
func TestFormDialogsFit(t *testing.T) {
	u := chatUI(t, &fakeGen{})
	entries, err := u.core.Library().List()
	if err != nil || len(entries) == 0 {
		t.Fatalf("library: %v, %v", entries, err)
	}
	for _, tc := range []struct {
		name string
		open func()
	}{
		{"conversation settings", func() { chatLocked(u, u.chat.showSettings) }},
		{"preset", func() {
			u.tabs.SelectIndex(tabLibrary)
			u.library.wait()
			u.library.selectModel(entries[0].Name)
			u.library.presetSelected()
		}},
	} {
		tc.open()
		size := fyne.NewSize(800, 600)
		chatLocked(u, func() {
			u.win.Resize(size)
			c := u.win.Canvas()
			top := c.Overlays().Top()
			if top == nil {
				t.Fatalf("%s: no dialog", tc.name)
			}
			checked := 0
			for _, o := range test.LaidOutObjects(top) {
				if !o.Visible() {
					continue
				}
				end := c.Size().Width
				switch o := o.(type) {
				case *canvas.Text:
					if o.Text == "" {
						continue
					}
					if right := fyne.CurrentApp().Driver().AbsolutePositionForObject(o).X + o.MinSize().Width; right > end {
						t.Errorf("%s: %q ends at %v, past the window's %v", tc.name, o.Text, right, end)
					}
					checked++
				case *widget.Entry:
					if right := fyne.CurrentApp().Driver().AbsolutePositionForObject(o).X + o.Size().Width; right > end {
						t.Errorf("%s: a field ends at %v, past the window's %v", tc.name, right, end)
					}
				}
			}
			if checked < 5 {
				t.Errorf("%s: only %d texts checked", tc.name, checked)
			}
			c.Overlays().Remove(top)
		})
	}
}
