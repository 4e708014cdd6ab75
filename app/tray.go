package app

import (
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// trayState is what the tray menu shows: the API's base URL ("" while it
// is stopped) and the loaded models.
type trayState struct {
	API    string
	Models []string
}

// trayHolder is the system tray Saji lives in while its window is hidden.
type trayHolder struct {
	app desktop.App // nil: the toolkit has no tray (or installTray has not run)
	// host reports whether a tray shows the icon now (trayHost; tests
	// replace it).
	host func() bool

	mu    sync.Mutex
	shown *trayState // the state the menu shows (nil: none yet)

	// menu is the one menu the tray is given, its items replaced as the
	// state changes: the toolkit sets up the tray asynchronously and then
	// shows the menu it was first given, so a new menu could be overwritten
	// by the first. UI goroutine.
	menu *fyne.Menu
}

// trayRefresh is how often the tray menu is compared with the engine's
// state (the API started or stopped from the window, models loaded by the
// chat or a request).
const trayRefresh = time.Second

// currentTrayState reads the state the tray menu shows.
func (u *ui) currentTrayState() trayState {
	var st trayState
	st.API = u.core.APIURL()
	for _, m := range u.core.Runner().Models() {
		st.Models = append(st.Models, m.Name)
	}
	return st
}

// trayAPILabel is the tray menu's line about the API, in the Server
// tab's words: "Server: running at 127.0.0.1:11435" or "Server: stopped".
func trayAPILabel(url string) string {
	if url == "" {
		return "Server: stopped"
	}
	return "Server: running at " + strings.TrimPrefix(url, "http://")
}

// newTrayMenu builds the tray menu for st: the API's state and address
// and the loaded models (lines that do nothing), then Open Saji, Start or
// Stop the server, and Quit.
func (u *ui) newTrayMenu(st trayState) *fyne.Menu {
	info := func(label string) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, nil)
		it.Disabled = true
		return it
	}
	items := []*fyne.MenuItem{info(trayAPILabel(st.API))}
	if len(st.Models) == 0 {
		items = append(items, info("No model loaded"))
	}
	for _, m := range st.Models {
		items = append(items, info("Loaded: "+m))
	}
	api := fyne.NewMenuItem(serverStartLabel, u.server.start)
	if st.API != "" {
		api = fyne.NewMenuItem(serverStopLabel, u.server.stop)
	}
	quit := fyne.NewMenuItem("Quit", u.app.Quit)
	quit.IsQuit = true
	items = append(items,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Open Saji", u.showWindow),
		api,
		fyne.NewMenuItemSeparator(),
		quit,
	)
	return fyne.NewMenu("Saji", items...)
}

// installTray puts Saji in the system tray when the app has one, and keeps
// the menu in step with the engine until the returned function is called.
func (u *ui) installTray() (stop func()) {
	desk, ok := u.app.(desktop.App)
	if !ok {
		return func() {}
	}
	u.tray.app = desk
	if u.tray.host == nil {
		u.tray.host = trayHost
	}
	desk.SetSystemTrayIcon(Icon())
	u.syncTray()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(trayRefresh)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				u.syncTray()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// syncTray sets the tray menu again when the state it shows has changed.
// It may run on any goroutine.
func (u *ui) syncTray() {
	if u.tray.app == nil {
		return
	}
	st := u.currentTrayState()
	u.tray.mu.Lock()
	same := u.tray.shown != nil && u.tray.shown.API == st.API && slices.Equal(u.tray.shown.Models, st.Models)
	u.tray.shown = &st
	u.tray.mu.Unlock()
	if !same {
		u.core.log.Debug("app: the tray menu", "api", st.API, "models", st.Models)
		fyne.Do(func() {
			m := u.newTrayMenu(st)
			if u.tray.menu == nil {
				u.tray.menu = m
			} else {
				u.tray.menu.Items = m.Items
			}
			u.tray.app.SetSystemTrayMenu(u.tray.menu)
		})
	}
}

// closeRequested is the window's close button: while the API serves and
// the settings keep Saji in the tray, it hides the window (the API keeps
// serving and the tray brings the window back); otherwise it closes it,
// which quits.
func (u *ui) closeRequested() {
	if u.keepsInTray() {
		u.win.Hide()
		return
	}
	u.win.Close()
}

// keepsInTray says whether closing the window hides it in the tray: not
// where no tray shows the icon that brings it back.
func (u *ui) keepsInTray() bool {
	return u.tray.app != nil && u.core.Settings().KeepInTray && u.core.APIURL() != "" && u.tray.host()
}
