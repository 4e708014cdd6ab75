package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// libraryView lists the local models.
type libraryView struct{ content fyne.CanvasObject }

func newLibraryView(u *ui) *libraryView       { return &libraryView{content: widget.NewLabel("Library")} }
func (v *libraryView) refresh()               {}
func (v *libraryView) importPaths(p []string) {}

func userMessage(err error) string { return err.Error() }
