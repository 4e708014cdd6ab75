package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// settingsView edits Settings.
type settingsView struct{ content fyne.CanvasObject }

func newSettingsView(u *ui) *settingsView { return &settingsView{content: widget.NewLabel("Settings")} }
func applyTheme(a fyne.App, name string)  {}
