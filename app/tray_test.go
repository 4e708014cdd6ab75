package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// trayApp is an app with a system tray that records its menus.
type trayApp struct {
	fyne.App
	menus []*fyne.Menu
	quits int
}

func (a *trayApp) SetSystemTrayMenu(m *fyne.Menu)  { a.menus = append(a.menus, m) }
func (a *trayApp) SetSystemTrayIcon(fyne.Resource) {}
func (a *trayApp) SetSystemTrayWindow(fyne.Window) {}
func (a *trayApp) Quit()                           { a.quits++ }
func (a *trayApp) last() *fyne.Menu                { return a.menus[len(a.menus)-1] }

// trayTestUI is a window whose app has a tray, installed.
func trayTestUI(t *testing.T) (*ui, *trayApp, *windowLog) {
	t.Helper()
	u, p := serverTestUI(t)
	p.port.SetText("0")
	a := &trayApp{App: u.app}
	u.app = a
	win := &windowLog{Window: u.win}
	u.win = win
	u.tray.host = func() bool { return true }
	stop := u.installTray()
	stop() // the tests refresh the menu themselves (syncTray), on their goroutine
	return u, a, win
}

// menuItem returns the item of m labelled label.
func menuItem(t *testing.T, m *fyne.Menu, label string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if it.Label == label {
			return it
		}
	}
	t.Fatalf("the tray menu has no %q: %s", label, menuLabels(m))
	return nil
}

// menuLabels lists m's labels ("-" for a separator).
func menuLabels(m *fyne.Menu) string {
	var l []string
	for _, it := range m.Items {
		if it.IsSeparator {
			l = append(l, "-")
			continue
		}
		l = append(l, it.Label)
	}
	return strings.Join(l, " | ")
}

func TestTrayMenu(t *testing.T) {
	u, a, win := trayTestUI(t)
	if len(a.menus) != 1 {
		t.Fatalf("%d tray menus set, want 1", len(a.menus))
	}
	if got, want := menuLabels(a.last()), "Server: stopped | No model loaded | - | Open Saji | Start the server | - | Quit"; got != want {
		t.Errorf("tray menu %q, want %q", got, want)
	}
	if it := menuItem(t, a.last(), "Server: stopped"); !it.Disabled {
		t.Error("the API's state is a tray item that does something")
	}

	// Start the server from the tray: the menu says where it listens.
	menuItem(t, a.last(), "Start the server").Action()
	u.server.wait()
	url := u.core.APIURL()
	if url == "" {
		t.Fatalf("the tray's Start did not start the API: %s", u.server.status.Text)
	}
	u.syncTray()
	if got, want := a.last().Items[0].Label, "Server: running at "+strings.TrimPrefix(url, "http://"); got != want {
		t.Errorf("API line %q, want %q", got, want)
	}
	if !strings.HasPrefix(a.last().Items[0].Label, "Server: running at 127.0.0.1:") {
		t.Errorf("API line %q", a.last().Items[0].Label)
	}
	n := len(a.menus)
	u.syncTray()
	if len(a.menus) != n {
		t.Error("the tray menu was set again with nothing changed")
	}

	// Closing the window while the API serves hides it in the tray.
	u.closeRequested()
	if win.hidden != 1 || win.closed != 0 {
		t.Errorf("closing with the API on: hidden %d, closed %d; want hidden", win.hidden, win.closed)
	}
	menuItem(t, a.last(), "Open Saji").Action()
	if win.shown == 0 || win.focused == 0 {
		t.Error("Open Saji did not bring the window back")
	}

	// A loaded model shows; Stop stops the API.
	if _, err := u.core.Library().Import(t.Context(), tinyModel(t), false, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := u.core.Library().List()
	if _, err := u.core.LoadModel(entries[0].Name); err != nil {
		t.Fatal(err)
	}
	u.syncTray()
	menuItem(t, a.last(), "Loaded: "+entries[0].Name)
	menuItem(t, a.last(), "Stop the server").Action()
	u.server.wait()
	if u.core.APIURL() != "" {
		t.Error("the tray's Stop did not stop the API")
	}
	u.syncTray()
	menuItem(t, a.last(), "Server: stopped")
	menuItem(t, a.last(), "Start the server")

	// With the API off, closing the window closes it (and quits).
	u.closeRequested()
	if win.closed != 1 {
		t.Errorf("closing with the API off: closed %d, want 1", win.closed)
	}
	quit := menuItem(t, a.last(), "Quit")
	if !quit.IsQuit {
		t.Error("Quit is not the menu's quit item")
	}
	quit.Action()
	if a.quits != 1 {
		t.Errorf("Quit quit %d times", a.quits)
	}
}

// TestCloseHidesInTray closes the window while the API serves: it hides
// in the tray only when the setting says so and a tray shows the icon.
func TestCloseHidesInTray(t *testing.T) {
	tests := []struct {
		name       string
		keep, host bool
		wantHidden bool
	}{
		{"kept in the tray", true, true, true},
		{"the setting off", false, true, false},
		{"no tray host", true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, a, win := trayTestUI(t)
			u.tray.host = func() bool { return tt.host }
			s := u.core.Settings()
			s.KeepInTray = tt.keep
			if err := u.core.SetSettings(s); err != nil {
				t.Fatal(err)
			}
			menuItem(t, a.last(), "Start the server").Action()
			u.server.wait()
			if u.core.APIURL() == "" {
				t.Fatal("the API did not start")
			}
			u.closeRequested()
			if hidden := win.hidden == 1 && win.closed == 0; hidden != tt.wantHidden || win.hidden+win.closed != 1 {
				t.Errorf("hidden %d, closed %d; want hidden %v", win.hidden, win.closed, tt.wantHidden)
			}
		})
	}
}

func TestNoTrayNoHiding(t *testing.T) {
	u, p := serverTestUI(t)
	p.port.SetText("0")
	win := &windowLog{Window: u.win}
	u.win = win
	u.installTray() // the test app has no tray
	startPanel(t, p)
	if u.core.APIURL() == "" {
		t.Fatal("the API did not start")
	}
	u.closeRequested()
	if win.closed != 1 {
		t.Error("without a tray, closing hid the window where nothing can bring it back")
	}
}

func TestKeepInTrayDefault(t *testing.T) {
	if !newTestCore(t).Settings().KeepInTray {
		t.Error("keep in tray is off by default")
	}
}

// TestSettingsKeepInTray stores the keep-in-tray setting.
func TestSettingsKeepInTray(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	v := u.settings
	if !v.keepInTray.Checked {
		t.Fatal("keep in tray is off by default")
	}
	test.Tap(v.keepInTray)
	test.Tap(v.saveButton)
	v.saving.wait()
	if loadSettings(u.core.prefs).KeepInTray {
		t.Error("keep in tray is still on after unticking it")
	}
}
