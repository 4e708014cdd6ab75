package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func TestMainWindow(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	if got := u.win.Title(); got != "Saji" {
		t.Errorf("title %q, want Saji", got)
	}
	tabs, ok := u.win.Content().(*container.AppTabs)
	if !ok {
		t.Fatalf("content is %T, want *container.AppTabs", u.win.Content())
	}
	var names []string
	for _, it := range tabs.Items {
		names = append(names, it.Text)
	}
	want := []string{"Chat", "Library", "Discover", "Server", "Settings"}
	if len(names) != len(want) {
		t.Fatalf("tabs %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("tab %d is %q, want %q", i, names[i], want[i])
		}
	}
}

// findLabel reports whether o contains a label whose text is text.
func findLabel(o fyne.CanvasObject, text string) bool {
	if l, ok := o.(*widget.Label); ok && l.Text == text {
		return true
	}
	if c, ok := o.(*fyne.Container); ok {
		for _, child := range c.Objects {
			if findLabel(child, text) {
				return true
			}
		}
	}
	return false
}

// TestMainMenu checks the menu bar and that its view shortcuts switch tabs
// even while the chat's entry has the focus.
func TestMainMenu(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	menu := u.win.MainMenu()
	if menu == nil || len(menu.Items) != 3 {
		t.Fatalf("main menu %+v, want File, View and Help", menu)
	}
	view := menu.Items[1]
	if len(view.Items) != 5 || view.Items[1].Label != "Library" || view.Items[1].Shortcut == nil {
		t.Fatalf("view menu %+v", view.Items)
	}
	for i, it := range view.Items {
		it.Action()
		if u.tabs.SelectedIndex() != i {
			t.Errorf("%s selected tab %d", it.Label, u.tabs.SelectedIndex())
		}
	}
	menu.Items[2].Items[0].Action() // Help > Welcome
	if u.tabs.SelectedIndex() != tabChat || !u.welcome.Visible() {
		t.Error("Help > Welcome does not show the welcome view")
	}
}
