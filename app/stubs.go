package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TODO(helpers): each view replaces its stub here with its own file.

type chatView struct{ content fyne.CanvasObject }

func newChatView(u *ui) *chatView      { return &chatView{content: widget.NewLabel("Chat")} }
func (v *chatView) refreshModels()     {}
func (v *chatView) openModel(n string) {}

type libraryView struct{ content fyne.CanvasObject }

func newLibraryView(u *ui) *libraryView       { return &libraryView{content: widget.NewLabel("Library")} }
func (v *libraryView) refresh()               {}
func (v *libraryView) importPaths(p []string) {}

type serverPanel struct{ content fyne.CanvasObject }

func newServerPanel(u *ui) *serverPanel { return &serverPanel{content: widget.NewLabel("Server")} }
func (p *serverPanel) start()           {}
func (p *serverPanel) close()           {}

type settingsView struct{ content fyne.CanvasObject }

func newSettingsView(u *ui) *settingsView { return &settingsView{content: widget.NewLabel("Settings")} }
func applyTheme(a fyne.App, name string)  {}

func newWelcomeView(u *ui) fyne.CanvasObject { return widget.NewLabel("Welcome") }

func userMessage(err error) string { return err.Error() }
