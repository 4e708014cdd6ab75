// Package app is Saji's desktop GUI, built with Fyne: the main window with
// its chat, library, Discover (Hugging Face), server and settings views. It is the only package
// that imports the toolkit; the engine underneath knows nothing of it.
//
// The views share a core (core.go): the settings, the model library, the
// conversation database and one server.Server whose loaded models serve
// both the chat and the local API. Engine work runs off the UI goroutine
// and reaches the widgets through fyne.Do, by way of a view's worker
// (background.go).
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"

	"saji/assets"
	"saji/engine/imagefile"
	"saji/internal/instance"
)

// ID is the application identifier, as in FyneApp.toml; Fyne keys the
// preferences and storage locations by it.
const ID = "io.saji.Saji"

// Options configures Run.
type Options struct {
	// Models are GGUF files to open with: they are added to the library
	// (by reference) and the first is loaded for the chat.
	Models []string
	// Logger receives the app's records (nil: slog.Default()).
	Logger *slog.Logger
	// Instance, when set, is this process's claim on the single instance:
	// the app opens the files later launches hand over to it.
	Instance *instance.Server
	// Version, Commit and BuildDate say which Saji this is, in About.
	Version, Commit, BuildDate string
}

// Run opens the main window and blocks until it is closed or ctx is
// cancelled.
func Run(ctx context.Context, opts Options) (err error) {
	if err := checkDisplay(hostOS, os.Getenv); err != nil {
		return err
	}
	// The toolkit panics when the display it was given cannot be opened
	// (DISPLAY names a server that is gone): that is an error to report,
	// not a crash.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("app: the window could not open: %v", r)
		}
	}()
	a := fyneapp.NewWithID(ID)
	a.SetIcon(Icon())
	c, err := newCore(coreOptions{Prefs: a.Preferences(), Logger: opts.Logger, Detect: detectMachine})
	if err != nil {
		return err
	}
	defer c.Close()
	u := newUI(a, c, c)
	u.build = buildInfo{Version: opts.Version, Commit: opts.Commit, Date: opts.BuildDate}
	stop := context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	defer stop()
	if opts.Instance != nil {
		u.serveInstance(opts.Instance)
		defer opts.Instance.Close()
	}
	stopTray := u.installTray()
	defer stopTray()
	u.start(opts.Models)
	u.checkUpdate()
	u.win.ShowAndRun()
	return nil
}

// Icon returns the app icon as a Fyne resource.
func Icon() fyne.Resource {
	return fyne.NewStaticResource("icon.png", assets.Icon)
}

// ui is the main window and its views.
type ui struct {
	app  fyne.App
	win  fyne.Window
	core *core
	gen  Generator

	tabs     *container.AppTabs
	chatTab  *fyne.Container // the chat, or the welcome view over it
	chat     *chatView
	library  *libraryView
	discover *discoverView
	server   *serverPanel
	settings *settingsView
	welcome  fyne.CanvasObject

	bg worker // the window's own work: opening the models given at launch

	build buildInfo  // the version, commit and build date About shows
	tray  trayHolder // the system tray's menu, once installTray has set it up
}

// Tab indexes.
const (
	tabChat = iota
	tabLibrary
	tabDiscover
	tabServer
	tabSettings
)

// newUI builds the main window of a over c; gen writes the chat's replies
// (c itself, or a fake in tests). The caller shows the window.
func newUI(a fyne.App, c *core, gen Generator) *ui {
	u := &ui{app: a, core: c, gen: gen}
	u.win = a.NewWindow("Saji")
	applyTheme(a, c.Settings().Theme)
	u.chat = newChatView(u)
	u.library = newLibraryView(u)
	u.discover = newDiscoverView(u)
	u.server = newServerPanel(u)
	u.settings = newSettingsView(u)
	u.welcome = newWelcomeView(u)
	u.chatTab = container.NewStack(u.chat.content, u.welcome)
	u.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Chat", chatIcon(), u.chatTab),
		container.NewTabItemWithIcon("Library", theme.StorageIcon(), u.library.content),
		container.NewTabItemWithIcon("Discover", theme.SearchIcon(), u.discover.content),
		container.NewTabItemWithIcon("Server", theme.ComputerIcon(), u.server.content),
		container.NewTabItemWithIcon("Settings", theme.SettingsIcon(), u.settings.content),
	)
	u.tabs.SetTabLocation(container.TabLocationLeading)
	// The downloads indicator sits under the tabs, in every view.
	u.win.SetContent(container.NewStack(u.tabs,
		container.NewBorder(nil, container.NewHBox(container.NewPadded(u.discover.indicator.content)), nil, nil)))
	u.win.Resize(windowSize(c.prefs))
	u.win.SetMaster()
	u.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { u.dropped(uris) })
	u.win.SetMainMenu(u.mainMenu())
	u.win.SetCloseIntercept(u.closeRequested)
	u.win.SetOnClosed(func() {
		u.saveWindowSize()
		u.server.close()
		u.discover.close() // the downloads keep their state for the next run
	})
	u.modelsChanged()
	return u
}

// mainMenu is the window's menu bar. Its shortcuts work whatever has the
// focus (the window tries menu shortcuts before the focused widget's).
func (u *ui) mainMenu() *fyne.MainMenu {
	short := func(key fyne.KeyName) fyne.Shortcut {
		return &desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault}
	}
	item := func(label string, key fyne.KeyName, action func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, action)
		if key != "" {
			it.Shortcut = short(key)
		}
		return it
	}
	quit := item("Quit", fyne.KeyQ, func() {
		u.saveWindowSize()
		u.app.Quit()
	})
	quit.IsQuit = true
	file := fyne.NewMenu("File",
		item("New conversation", fyne.KeyN, func() {
			u.tabs.SelectIndex(tabChat)
			u.chat.newChat()
		}),
		item("Import a model...", fyne.KeyO, func() {
			u.tabs.SelectIndex(tabLibrary)
			u.library.pickFiles()
		}),
		item("Search conversations", fyne.KeyF, u.find),
		fyne.NewMenuItemSeparator(),
		item("Close", fyne.KeyW, u.closeCurrent),
		quit,
	)
	var views []*fyne.MenuItem
	for i, it := range u.tabs.Items {
		views = append(views, item(it.Text, fyne.KeyName(fmt.Sprint(i+1)), func() { u.tabs.SelectIndex(i) }))
	}
	help := fyne.NewMenu("Help",
		fyne.NewMenuItem("Welcome", func() {
			u.tabs.SelectIndex(tabChat)
			u.welcome.Show()
		}),
		fyne.NewMenuItem("What can this computer run?", func() { u.showWizard() }),
		fyne.NewMenuItem("About Saji", u.showAbout),
	)
	return fyne.NewMainMenu(file, fyne.NewMenu("View", views...), help)
}

// start runs what the app does once its window exists: open the models
// given on the command line (the first in the chat), start the API if the
// settings say so.
func (u *ui) start(models []string) {
	u.openModels(models)
	if u.core.Settings().StartServer {
		u.server.start()
	}
	u.welcome.(*welcomeView).describe()
}

// openModels adds models to the library (by reference) and opens the first
// in the chat: the files Saji was launched with, or handed over by a later
// launch. Pictures among them go with the chat's next message.
func (u *ui) openModels(files []string) {
	var models, pictures []string
	for _, f := range files {
		if imagefile.IsPicturePath(f) {
			pictures = append(pictures, f)
		} else {
			models = append(models, f)
		}
	}
	if len(pictures) > 0 {
		u.tabs.SelectIndex(tabChat)
		u.chat.attachPaths(pictures)
	}
	if len(models) > 0 {
		u.bg.run(func() func() {
			lib := u.core.Library()
			for i, path := range models {
				e, err := lib.Import(context.Background(), path, false, nil)
				u.bg.do(func() {
					if err != nil {
						u.showError("Could not open "+path, err)
						return
					}
					u.modelsChanged()
					if i == 0 {
						u.tabs.SelectIndex(tabChat)
						u.chat.openModel(e.Name)
					}
				})
			}
			return nil
		})
	}
}

// dropped handles files dropped onto the window: pictures go with the
// chat's next message, GGUF files to the library.
func (u *ui) dropped(uris []fyne.URI) {
	var paths, pictures []string
	for _, uri := range uris {
		switch {
		case uri.Scheme() != "file":
		case imagefile.IsPicturePath(uri.Path()):
			pictures = append(pictures, uri.Path())
		default:
			paths = append(paths, uri.Path())
		}
	}
	if len(pictures) > 0 {
		// Pictures go with the chat's next message, models to the library.
		u.tabs.SelectIndex(tabChat)
		u.chat.attachPaths(pictures)
	}
	if len(paths) == 0 {
		return
	}
	u.tabs.SelectIndex(tabLibrary)
	u.library.importPaths(paths)
}

// modelsChanged refreshes what shows the library: the chat's model picker,
// the library list, and the welcome view (shown while there is no model
// and the person has not dismissed it).
func (u *ui) modelsChanged() {
	u.library.refresh()
	u.chat.refreshModels()
	u.discover.refreshLevels()
	entries, _ := u.core.Library().List()
	if len(entries) > 0 || u.core.Settings().Welcomed {
		u.welcome.Hide()
	} else {
		u.welcome.Show()
	}
}

// showError shows err in a dialog titled what.
func (u *ui) showError(what string, err error) {
	d := dialog.NewError(errors.New(what+":\n\n"+userMessage(err)), u.win)
	d.Show()
}
