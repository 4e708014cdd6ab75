package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

func TestMainWindow(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	if got := u.win.Title(); got != "Saji" {
		t.Errorf("title %q, want Saji", got)
	}
	// The tabs, with the downloads indicator over the sidebar's foot.
	stack, ok := u.win.Content().(*fyne.Container)
	if !ok || len(stack.Objects) != 2 {
		t.Fatalf("content is %T, want the tabs and the downloads indicator", u.win.Content())
	}
	tabs, ok := stack.Objects[0].(*container.AppTabs)
	if !ok {
		t.Fatalf("content is %T, want *container.AppTabs", stack.Objects[0])
	}
	if tabs.Items[0].Icon.Name() == theme.MailComposeIcon().Name() {
		t.Error("the Chat's icon is an envelope")
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

// TestStandardShortcuts checks the File menu's standard shortcuts: Ctrl+N,
// Ctrl+F (the chat's search takes the focus), Ctrl+W (closes the open
// conversation in the chat) and Ctrl+Q (a quit item).
func TestStandardShortcuts(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	items := map[fyne.KeyName]*fyne.MenuItem{}
	for _, it := range u.win.MainMenu().Items[0].Items {
		if s, ok := it.Shortcut.(*desktop.CustomShortcut); ok && s.Modifier == fyne.KeyModifierShortcutDefault {
			items[s.KeyName] = it
		}
	}
	for _, k := range []fyne.KeyName{fyne.KeyN, fyne.KeyO, fyne.KeyF, fyne.KeyW, fyne.KeyQ} {
		if items[k] == nil {
			t.Fatalf("no File item on Ctrl+%s", k)
		}
	}
	if !items[fyne.KeyQ].IsQuit {
		t.Error("Ctrl+Q's item is not the quit item")
	}
	u.tabs.SelectIndex(tabLibrary)
	items[fyne.KeyF].Action()
	if u.tabs.SelectedIndex() != tabChat || u.win.Canvas().Focused() != u.chat.search {
		t.Errorf("Ctrl+F: tab %d, focus %v", u.tabs.SelectedIndex(), u.win.Canvas().Focused())
	}
	c, err := u.core.Store().NewConversation("open", "m")
	if err != nil {
		t.Fatal(err)
	}
	u.chat.openConversation(c.ID)
	if u.chat.conv == nil {
		t.Fatal("the conversation did not open")
	}
	items[fyne.KeyW].Action()
	if u.chat.conv != nil {
		t.Error("Ctrl+W left the conversation open")
	}
}

// TestWindowSize remembers the window's size across runs, and brings a
// broken or tiny one up to a usable size.
func TestWindowSize(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	p := u.core.prefs
	if got := windowSize(p); got != defaultWindowSize {
		t.Errorf("first run: %v", got)
	}
	u.win.Resize(fyne.NewSize(900, 650))
	u.saveWindowSize()
	if got := windowSize(p); got != fyne.NewSize(900, 650) {
		t.Errorf("remembered %v, want 900x650", got)
	}
	p.SetFloat(prefWindowWidth, 100)
	if got := windowSize(p); got.Width != minWindowSize.Width || got.Height != 650 {
		t.Errorf("a tiny width gave %v", got)
	}
	p.SetFloat(prefWindowHeight, -1)
	if got := windowSize(p); got != defaultWindowSize {
		t.Errorf("a broken height gave %v", got)
	}
	if got := windowSize(nil); got != defaultWindowSize {
		t.Errorf("no preferences: %v", got)
	}
}
