package app

import (
	"fyne.io/fyne/v2"

	"saji/internal/instance"
)

// serveInstance opens the files that later launches hand over to inst
// (package instance), bringing the window to the front, until inst is
// closed.
func (u *ui) serveInstance(inst *instance.Server) {
	go func() {
		err := inst.Serve(func(files []string) { fyne.Do(func() { u.handover(files) }) })
		if err != nil {
			u.core.log.Warn("app: the single-instance endpoint stopped", "err", err)
		}
	}()
}

// handover is a later launch's: it shows the window (hidden in the tray,
// or behind others) and opens files as a launch with them would.
func (u *ui) handover(files []string) {
	u.showWindow()
	u.openModels(files)
}

// showWindow shows the main window and asks for the focus.
func (u *ui) showWindow() {
	u.win.Show()
	u.win.RequestFocus()
}
